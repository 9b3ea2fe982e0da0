package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection's MULTI: the store commands queued until EXEC, which sends them as one write, {@code EXEC} followed by
 * each command's argument count and arguments. Every member applies that write whole, in the group's order, so no
 * other client's command comes between two of a transaction's (Redis's guarantee, without WATCH). A command refused
 * while queuing (unknown, not a store command, past the size a write may take) makes EXEC discard them all.
 */
final class Transaction
{
    static final byte[] EXEC = "EXEC".getBytes(StandardCharsets.US_ASCII);
    static final Reply QUEUED = new Reply.Simple("QUEUED");

    private final List<byte[]> exec = new ArrayList<>();
    private final int maxBytes;
    /** The write's bytes as {@link Command} counts them. */
    private int bytes = 4 + 4 + EXEC.length;
    private boolean refused;

    /** A transaction whose EXEC may take at most {@code maxBytes} (a write's limit, see {@link KvReplica}). */
    Transaction(final int maxBytes)
    {
        this.maxBytes = maxBytes;
        exec.add(EXEC);
    }

    /** Queues a store command: its reply comes with EXEC's. */
    Reply queue(final List<byte[]> args)
    {
        final byte[] count = Integer.toString(args.size()).getBytes(StandardCharsets.US_ASCII);
        int more = 4 + count.length;
        for (final byte[] a : args)
        {
            more += 4 + a.length;
        }
        if (bytes + more > maxBytes) // checked as it grows: a client cannot fill the member's heap with a MULTI
        {
            return refuse("ERR the transaction would exceed the replicated store's limit of " + maxBytes +
                " bytes for one write; it is discarded at EXEC");
        }
        bytes += more;
        exec.add(count);
        exec.addAll(args);
        return QUEUED;
    }

    /** Refuses a command inside the transaction: EXEC discards it whole. */
    Reply refuse(final String error)
    {
        refused = true;
        return Reply.error(error);
    }

    /** Whether EXEC must discard the transaction. */
    boolean refused()
    {
        return refused;
    }

    /** The write EXEC sends. */
    List<byte[]> exec()
    {
        return exec;
    }

    /**
     * The commands of an EXEC write ({@link #exec()}), each a view of its arguments: what every member applies.
     *
     * @throws KvStore.SyntaxError the write is not one this class makes
     */
    static List<List<byte[]>> commands(final List<byte[]> exec)
    {
        final List<List<byte[]>> commands = new ArrayList<>();
        int i = 1;
        while (i < exec.size())
        {
            final long n = KvStore.integer(exec.get(i));
            if (n < 1 || n > exec.size() - i - 1)
            {
                throw new KvStore.SyntaxError("ERR malformed EXEC write");
            }
            commands.add(exec.subList(i + 1, i + 1 + (int)n));
            i += 1 + (int)n;
        }
        return commands;
    }
}
