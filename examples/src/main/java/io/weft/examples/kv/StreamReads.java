package io.weft.examples.kv;

import java.util.List;

/**
 * The words of XREAD and XREADGROUP ({@code [GROUP group consumer] [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS
 * key [key ...] id [id ...]}), read as Redis reads them (xreadCommand), with its errors in its order.
 */
final class StreamReads
{
    /** XREADGROUP's group and consumer; null for XREAD. */
    byte[] group;
    byte[] consumer;
    /** The most entries a stream answers; 0: no bound. */
    long count;
    boolean noAck;
    /** The index of the first key, and the count of keys (each with its ID after the keys). */
    int streamsAt;
    int streams;

    /**
     * The KvWire version since which a script's XREAD or XREADGROUP with BLOCK meets the errors of the options before
     * BLOCK first, and names the command as the script did ({@link #refusalInScript}); a log's older script's got the
     * refusal at once.
     */
    static final byte SCRIPT_ORDER_SINCE = 24;

    /** Reads {@code args} of XREAD or, if {@code byGroup}, XREADGROUP; Redis's error for a wrong word. */
    static StreamReads parse(final List<byte[]> args, final boolean byGroup)
    {
        return parse(args, byGroup, null);
    }

    /**
     * What a script's XREAD or XREADGROUP {@code args}, which hold BLOCK before STREAMS, is answered: {@code refusal},
     * unless an option before BLOCK is wrong (a COUNT that is no integer, GROUP or NOACK in XREAD), whose error Redis
     * meets first as it reads the words in order.
     */
    static String refusalInScript(final List<byte[]> args, final boolean byGroup, final String refusal)
    {
        try
        {
            parse(args, byGroup, refusal);
            return refusal;
        }
        catch (final KvStore.SyntaxError ex)
        {
            return ex.getMessage();
        }
    }

    /** {@link #parse}, refused with {@code blockRefusal} at a BLOCK word unless it is null. */
    private static StreamReads parse(final List<byte[]> args, final boolean byGroup, final String blockRefusal)
    {
        final StreamReads r = new StreamReads();
        for (int i = 1; i < args.size() && r.streamsAt == 0; i++)
        {
            final int more = args.size() - 1 - i;
            final byte[] word = args.get(i);
            if (more > 0 && Commands.is(word, "BLOCK"))
            {
                if (blockRefusal != null)
                {
                    throw new KvStore.SyntaxError(blockRefusal);
                }
                StreamCommands.blockMilliseconds(args.get(++i));
            }
            else if (more > 0 && Commands.is(word, "COUNT"))
            {
                r.count = Math.max(0, ValueEdits.integer(args.get(++i)));
            }
            else if (more > 0 && Commands.is(word, "STREAMS"))
            {
                r.streamsAt = i + 1;
                if (more % 2 != 0)
                {
                    throw new KvStore.SyntaxError("ERR Unbalanced XREAD list of streams: for each stream key an ID " +
                        "or '$' must be specified.");
                }
                r.streams = more / 2;
            }
            else if (more >= 2 && Commands.is(word, "GROUP"))
            {
                only(byGroup, "GROUP");
                r.group = args.get(++i);
                r.consumer = args.get(++i);
            }
            else if (Commands.is(word, "NOACK"))
            {
                only(byGroup, "NOACK");
                r.noAck = true;
            }
            else
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
        }
        if (r.streamsAt == 0)
        {
            throw new KvStore.SyntaxError("ERR syntax error");
        }
        if (byGroup && r.group == null)
        {
            throw new KvStore.SyntaxError("ERR Missing GROUP option for XREADGROUP");
        }
        return r;
    }

    private static void only(final boolean byGroup, final String option)
    {
        if (!byGroup)
        {
            throw new KvStore.SyntaxError("ERR The " + option + " option is only supported by XREADGROUP. You " +
                "called XREAD instead.");
        }
    }

    byte[] key(final List<byte[]> args, final int i)
    {
        return args.get(streamsAt + i);
    }

    byte[] id(final List<byte[]> args, final int i)
    {
        return args.get(streamsAt + streams + i);
    }

    /** The BLOCK argument of XREAD or XREADGROUP {@code args}, null without one (the words before STREAMS). */
    static byte[] blockArgument(final List<byte[]> args)
    {
        for (int i = 1; i < args.size() - 1; i++)
        {
            final byte[] word = args.get(i);
            if (Commands.is(word, "BLOCK"))
            {
                return args.get(i + 1);
            }
            if (Commands.is(word, "GROUP"))
            {
                i++;
            }
            else if (!Commands.is(word, "COUNT") && !Commands.is(word, "NOACK"))
            {
                return null; // STREAMS, or a syntax error
            }
            i += Commands.is(word, "NOACK") ? 0 : 1;
        }
        return null;
    }

    /** The keys of XREAD or XREADGROUP {@code args}, applied (so its words are valid). */
    static List<Key> keys(final List<byte[]> args)
    {
        final StreamReads r = parse(args, Commands.name(args).equals("XREADGROUP"));
        return Key.all(args.subList(0, r.streamsAt + r.streams), r.streamsAt);
    }
}
