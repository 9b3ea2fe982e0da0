package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A reply of the store, independent of the wire codec: the five RESP2 types, RESP3's map, set and push, and several
 * replies to one command (SUBSCRIBE a b: one confirmation a channel).
 */
public sealed interface Reply
{
    Reply OK = new Simple("OK");
    Reply NIL = new Bulk(null);
    Reply NIL_ARRAY = new Array(null);

    /** {@code +text}. */
    record Simple(String text) implements Reply
    {
    }

    /** {@code -CODE text}: the text starts with the Redis error code (ERR, WRONGTYPE, ...). */
    record Error(String text) implements Reply
    {
    }

    /** {@code :n}. */
    record Int(long value) implements Reply
    {
    }

    /** {@code $n bytes}, or the null bulk string for {@code null}. */
    record Bulk(byte[] bytes) implements Reply
    {
        public static Bulk of(final String text)
        {
            return new Bulk(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * Text for a person to read (INFO, CLIENT INFO, CLIENT LIST): a RESP3 verbatim string of format {@code txt}
     * ({@code =n txt:...}), a bulk string in RESP2 and to scripts, as Redis answers.
     */
    record Text(String text) implements Reply
    {
    }

    /** {@code *n items}, or the null array for {@code null}. */
    record Array(List<Reply> items) implements Reply
    {
    }

    /** Keys and values alternating: a RESP3 map ({@code %n}), a flat array in RESP2. */
    record Map(List<Reply> keysAndValues) implements Reply
    {
    }

    /** Distinct members (SMEMBERS, SINTER, ...): a RESP3 set ({@code ~n}), an array in RESP2. */
    record Set(List<Reply> items) implements Reply
    {
    }

    /** Out-of-band data (pub/sub): a RESP3 push ({@code >n}), an array in RESP2. */
    record Push(List<Reply> items) implements Reply
    {
    }

    /**
     * A double: a RESP3 double ({@code ,1.5}), a bulk string in RESP2, {@code text} in either: a sorted set's score
     * as {@link ZSetValue#format} writes it, unless the command writes its doubles otherwise (GEOPOS).
     */
    record Double(double value, String text) implements Reply
    {
        public Double(final double value)
        {
            this(value, ZSetValue.format(value));
        }
    }

    /**
     * Members each followed by its score (WITHSCORES, ZPOPMIN with a count), or fields by their values (HRANDFIELD
     * WITHVALUES): a flat array in RESP2, an array of pairs in RESP3, as Redis 7 answers each protocol.
     */
    record Scored(List<Reply> membersAndScores) implements Reply
    {
    }

    /**
     * Keys each with its value (XREAD's streams with their entries): a RESP3 map, an array of two-item arrays in RESP2
     * and to scripts, as Redis answers.
     */
    record Pairs(List<Reply> keysAndValues) implements Reply
    {
    }

    /** Replies written one after the other, for one command. */
    record Several(List<Reply> replies) implements Reply
    {
    }

    static Reply error(final String text)
    {
        return new Error(text);
    }

    /** PING [message] or ECHO message: answered by a connection, or by the store inside a transaction. */
    static Reply pong(final String command, final List<byte[]> args)
    {
        final int n = args.size();
        return n == 1 && command.equals("PING") ? new Simple("PONG") : n == 2 ? new Bulk(args.get(1)) :
            wrongArity(command);
    }

    /** A command the store does not know, named as Redis names it. */
    static Reply unknown(final String command)
    {
        return new Error("ERR unknown command '" + lowerCase(command) + "'");
    }

    static Error wrongArity(final String command)
    {
        return new Error("ERR wrong number of arguments for '" + lowerCase(command) + "' command");
    }

    /** A command that failed on a defect of its own, named; the client's connection and the store go on. */
    static Error internalError(final String command, final RuntimeException ex)
    {
        return new Error("ERR internal error in '" + lowerCase(command) + "': " + ex);
    }

    /** A command's name as Redis writes it in errors. */
    static String lowerCase(final String command)
    {
        return command.toLowerCase(java.util.Locale.ROOT);
    }
}
