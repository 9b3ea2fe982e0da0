package io.weft.bench;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Workload options shared by {@code bench} and {@code bench ablation}. */
final class BenchOptions
{
    @Option(names = "--transport", defaultValue = "shm", description = "shm, tcp or rdma (default ${DEFAULT-VALUE}).")
    String transport;

    @Mixin
    io.weft.examples.RdmaChoice rdma = new io.weft.examples.RdmaChoice();

    @Option(names = "--members", defaultValue = "3", description = "Member processes, 2..8 (default ${DEFAULT-VALUE}).")
    int members;

    @Option(names = "--senders", defaultValue = "all", description = "all, half or one (default ${DEFAULT-VALUE}).")
    String senders;

    @Option(names = "--size", defaultValue = "1024", description = "Message size in bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--window", defaultValue = "100", description = "Slots per sender ring (default ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--messages", defaultValue = "200000", description = "Messages per sender (default ${DEFAULT-VALUE}).")
    long messages;

    @Option(names = "--delay-us", defaultValue = "0", description = "Delayed senders busy-wait this long after each send.")
    long delayMicros;

    @Option(names = "--delayed", defaultValue = "one", description = "Which senders --delay-us applies to: one or half.")
    String delayed;

    @Option(names = "--callback-us", defaultValue = "0", description = "Busy-wait this long in every delivery callback.")
    long callbackMicros;

    @Option(names = "--rate", defaultValue = "0", description = "Messages per second per sender; 0: flat out (default).")
    long rate;

    @Option(names = "--runs", defaultValue = "3", description = "Repetitions; the report gives median and spread (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--json", description = "Print JSON rows instead of a table.")
    boolean json;

    /** Prints what is wrong and returns the exit code, or returns null when the options are valid. */
    Integer invalid()
    {
        final String problem = validate();
        if (problem == null)
        {
            return null;
        }
        System.err.println("weft: " + problem);
        return io.weft.examples.Weft.EXIT_CONFIG;
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
        if (size < 1 || size > (1 << 20))
        {
            return "--size must be in 1..1048576, was " + size;
        }
        if (window < 1 || window > 100_000)
        {
            return "--window must be in 1..100000, was " + window;
        }
        if (messages < 1 || runs < 1 || runs > 50)
        {
            return "--messages must be positive and --runs in 1..50";
        }
        return null;
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
