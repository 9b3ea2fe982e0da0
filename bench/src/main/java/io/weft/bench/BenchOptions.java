package io.weft.bench;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Workload options shared by {@code bench} and {@code bench ablation}. */
final class BenchOptions
{
    @Option(names = "--transport", defaultValue = "shm", description = "shm, tcp or rdma (default ${DEFAULT-VALUE}).")
    String transport;

    @Mixin
    io.weft.tools.RdmaChoice rdma = new io.weft.tools.RdmaChoice();

    @Option(names = "--members", defaultValue = "3", description = "Member processes, 2..8 (default ${DEFAULT-VALUE}).")
    int members;

    @Option(names = "--senders", defaultValue = "all", description = "all, half or one (default ${DEFAULT-VALUE}).")
    String senders;

    @Option(names = "--size", defaultValue = "1024", description = "Message size in bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--window", defaultValue = "0", description = "Sender ring in max-payload messages; 0: auto, " +
        "a ring of about 1 MiB (256 KiB on rdma) (default ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--max-payload", defaultValue = "0", description = "Weft's subgroup max-payload in bytes, at " +
        "least --size; 0: --size (default ${DEFAULT-VALUE}). Larger: messages smaller than the subgroup allows, as " +
        "in an application's configuration.")
    int maxPayload;

    @Option(names = "--shm-copy",
        description = "shm: pushes copy into each target's file instead of zero copy (weft.transport.shm.zero-copy = false).")
    boolean shmCopy;

    @Option(names = "--tcp-threading", defaultValue = "auto", converter = TransportThreadingConverter.class,
        description = "tcp: separate, merged or auto (weft.transport.tcp.threading; default ${DEFAULT-VALUE}).")
    io.weft.config.TransportThreading tcpThreading = io.weft.config.TransportThreading.AUTO;

    @Option(names = "--invoker", description = "Invoker mode: each member's sending thread runs its predicate passes " +
        "(Group.builder().useInvoker()) instead of a predicate thread.")
    boolean invoker;

    @Mixin
    SteadyOptions steady = new SteadyOptions();

    @Mixin
    io.weft.tools.AppWork work = new io.weft.tools.AppWork();

    @Option(names = "--delayed", defaultValue = "one", description = "Which senders --delay-us applies to: one or half.")
    String delayed;

    @Option(names = "--rate", defaultValue = "0", description = "Messages per second per sender; 0: flat out (default).")
    long rate;

    @Option(names = "--json", description = "Print JSON rows instead of a table.")
    boolean json;

    /** A DDS topic of this QoS level instead of a raw subgroup (set by {@code bench dds}); null: the Group API. */
    io.weft.config.QosLevel qos;

    /** Test hook (not an option): member 0 flips a payload byte of this message after writing its checksum. */
    long corruptMessage = -1;

    /** Spelled as in configuration files, with the error the configuration loader gives. */
    static final class TransportThreadingConverter
        implements picocli.CommandLine.ITypeConverter<io.weft.config.TransportThreading>
    {
        @Override
        public io.weft.config.TransportThreading convert(final String value)
        {
            return io.weft.config.TransportThreading.parse("--tcp-threading", value);
        }
    }

    /** Prints what is wrong and returns the exit code, or returns null when the options are valid. */
    Integer invalid()
    {
        final String problem = validate();
        return problem == null ? null : io.weft.tools.Weft.refuse(problem);
    }

    private String validate()
    {
        if (!transport.equals("shm") && !transport.equals("tcp") && !transport.equals("rdma"))
        {
            return "--transport must be shm, tcp or rdma, was " + transport;
        }
        if (members < 2 || members > 8)
        {
            return "--members must be in 2..8, was " + members;
        }
        if (!senders.equals("all") && !senders.equals("half") && !senders.equals("one"))
        {
            return "--senders must be all, half or one, was " + senders;
        }
        if (!delayed.equals("one") && !delayed.equals("half"))
        {
            return "--delayed must be one or half, was " + delayed;
        }
        if (size < io.weft.bench.steady.Payload.HEADER_LENGTH || size > (1 << 20))
        {
            return "--size must be in " + io.weft.bench.steady.Payload.HEADER_LENGTH + "..1048576 (every message " +
                "carries the bench header: counter, timestamp, checksum, sender), was " + size;
        }
        if (maxPayload != 0 && (maxPayload < size || maxPayload > (1 << 20)))
        {
            return "--max-payload must be in --size (" + size + ")..1048576, or 0 for --size, was " + maxPayload;
        }
        if (window < 0 || window > 100_000)
        {
            return "--window must be in 1..100000, or 0 for auto, was " + window;
        }
        final String problem = work.problem();
        return problem != null ? problem : steady.validate();
    }

    /** The window: {@code --window}, or what {@code window = auto} gives for the transport and max-payload. */
    int slots()
    {
        return window > 0 ? window : io.weft.config.SubgroupConfig.autoWindow(
            io.weft.config.TransportKind.parse("--transport", transport), maxPayloadBytes());
    }

    /** The subgroup's max-payload: {@code --max-payload}, or the message size. */
    int maxPayloadBytes()
    {
        return maxPayload > 0 ? maxPayload : size;
    }

    int senderCount()
    {
        return switch (senders)
        {
            case "all" -> members;
            case "half" -> Math.max(1, members / 2);
            default -> 1;
        };
    }
}
