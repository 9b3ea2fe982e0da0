package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Redis's commands on streams ({@link StreamValue}): XADD, XTRIM, XDEL and XSETID (writes, on the delivery thread
 * only) and XLEN, XRANGE, XREVRANGE and XREAD (reads, on the delivery thread too: they go through the group even with
 * local reads, {@link Commands}), with Redis 7.0's arguments, answers and errors. XADD's {@code *} takes its
 * milliseconds from the batch's clock reading, so every member gives the entry the same ID. Not kept yet: consumer
 * XREAD with BLOCK waits at its origin ({@link BlockedClients}). Consumer groups: {@link StreamGroupCommands}; XINFO:
 * {@link StreamInfo}.
 *
 * @param map the store's keys and values.
 */
record StreamCommands(Keyspace map)
{
    /** The first {@link KvWire} version with streams: a script of an older batch calls none of these commands. */
    static final byte SINCE = 22;

    /** Runs {@code cmd}, a stream's command, or answers the unknown command's error. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        if (!Commands.isQueued(cmd))
        {
            return Reply.unknown(cmd);
        }
        if (!Commands.fitsArity(cmd, args.size()))
        {
            return Reply.wrongArity(cmd);
        }
        return switch (cmd)
        {
            case "XADD" -> add(args, now);
            case "XLEN" -> new Reply.Int(size(map.stream(new Key(args.get(1)), now)));
            case "XRANGE" -> range(args, false, now);
            case "XREVRANGE" -> range(args, true, now);
            case "XDEL" -> delete(args, now);
            case "XTRIM" -> trim(args, now);
            case "XSETID" -> setId(args, now);
            case "XREAD" -> read(args, now);
            case "XGROUP", "XINFO" -> Subcommands.refusal(cmd, args) instanceof Reply.Error refused ? refused :
                Commands.is(args.get(1), "HELP") ? Subcommands.help(cmd) : cmd.equals("XINFO") ?
                StreamInfo.apply(map, args, now) : new StreamGroupCommands(map).apply(cmd, args, now);
            default -> new StreamGroupCommands(map).apply(cmd, args, now);
        };
    }

    private static int size(final StreamValue s)
    {
        return s == null ? 0 : s.entries().size();
    }

    /**
     * XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]: the new
     * entry's ID (nil with NOMKSTREAM and no stream). {@code *} is the batch's milliseconds if past the last ID's, else
     * the last ID's next; {@code ms-*} ms with the next sequence.
     */
    private Reply add(final List<byte[]> args, final long now)
    {
        final StreamTrim options = new StreamTrim();
        final int idAt = options.parse(args, true);
        final int fields = args.size() - idAt - 1;
        if (fields < 2 || fields % 2 == 1)
        {
            return Reply.wrongArity("XADD");
        }
        final StreamId given = options.id;
        final boolean seqGiven = given != null && options.sequenceGiven;
        if (seqGiven && given.isMin())
        {
            return Reply.error("ERR The ID specified in XADD must be greater than 0-0");
        }
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        if (live == null && options.noMakeStream)
        {
            return Reply.NIL;
        }
        final StreamValue s = map.writableStream(live);
        final StreamId last = s.entries().lastId();
        if (last.equals(StreamId.MAX))
        {
            return Reply.error("ERR The stream has exhausted the last possible ID, unable to add more items");
        }
        final StreamId id = given == null ? (Long.compareUnsigned(now, last.ms()) > 0 ? new StreamId(now, 0) :
            last.next()) : seqGiven || given.ms() != last.ms() ? given : last.seq() == -1 ? null : last.next();
        if (id == null || id.compareTo(last) <= 0)
        {
            return Reply.error("ERR The ID specified in XADD is equal or smaller than the target stream top item");
        }
        s.entries().add(id, args.subList(idAt + 1, args.size()).toArray(new byte[0][]));
        options.apply(s.entries());
        map.store(key, s);
        return new Reply.Bulk(id.bytes());
    }

    /** XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]: the count of entries removed. */
    private Reply trim(final List<byte[]> args, final long now)
    {
        final StreamTrim options = new StreamTrim();
        options.parse(args, false);
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        if (live == null)
        {
            return new Reply.Int(0);
        }
        final StreamValue s = map.writableStream(live);
        final long removed = options.apply(s.entries());
        if (removed > 0)
        {
            map.store(key, s);
        }
        return new Reply.Int(removed);
    }

    /** XDEL key id [id ...]: the count of entries deleted; every ID is read before any is deleted. */
    private Reply delete(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        if (live == null)
        {
            return new Reply.Int(0);
        }
        final List<StreamId> ids = new ArrayList<>(args.size() - 2);
        for (int i = 2; i < args.size(); i++)
        {
            ids.add(StreamId.parse(args.get(i), 0, true));
        }
        final StreamValue s = map.writableStream(live);
        int deleted = 0;
        for (final StreamId id : ids)
        {
            deleted += s.entries().delete(id) ? 1 : 0;
        }
        if (deleted > 0)
        {
            map.store(key, s);
        }
        return new Reply.Int(deleted);
    }

    /** XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]: OK. */
    private Reply setId(final List<byte[]> args, final long now)
    {
        final StreamId id = StreamId.parse(args.get(2), 0, true);
        long added = -1;
        StreamId maxDeleted = StreamId.MIN;
        for (int i = 3; i < args.size(); i += 2)
        {
            final boolean more = i < args.size() - 1;
            if (more && Commands.is(args.get(i), "ENTRIESADDED"))
            {
                added = ValueEdits.integer(args.get(i + 1));
                if (added < 0)
                {
                    return Reply.error("ERR entries_added must be positive");
                }
            }
            else if (more && Commands.is(args.get(i), "MAXDELETEDID"))
            {
                maxDeleted = StreamId.parse(args.get(i + 1), 0, true);
                if (id.compareTo(maxDeleted) < 0)
                {
                    return Reply.error("ERR The ID specified in XSETID is smaller than the provided " +
                        "max_deleted_entry_id");
                }
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final Key key = new Key(args.get(1));
        final StreamValue live = map.stream(key, now);
        if (live == null)
        {
            return Reply.error("ERR no such key");
        }
        final StreamValue.Entries entries = live.entries();
        if (entries.size() > 0 && id.compareTo(entries.lastEntryId()) < 0)
        {
            return Reply.error("ERR The ID specified in XSETID is smaller than the target stream top item");
        }
        if (entries.size() > 0 && added != -1 && entries.size() > added)
        {
            return Reply.error("ERR The entries_added specified in XSETID is smaller than the target stream length");
        }
        final StreamValue s = map.writableStream(live);
        s.entries().counters(id, maxDeleted.isMin() ? entries.maxDeletedId() : maxDeleted,
            added == -1 ? entries.entriesAdded() : added);
        map.store(key, s);
        return Reply.OK;
    }

    /**
     * XRANGE key start end [COUNT count], XREVRANGE key end start [COUNT count]: the entries in the interval, each its
     * ID and its fields and values; {@code (} before an ID excludes it, an ID without sequence is its first (start)
     * or last (end); nil for a COUNT of 0 or less on a stream.
     */
    private Reply range(final List<byte[]> args, final boolean reverse, final long now)
    {
        final StreamId start = interval(args.get(reverse ? 3 : 2), true);
        final StreamId end = interval(args.get(reverse ? 2 : 3), false);
        long count = -1;
        for (int i = 4; i < args.size(); i++)
        {
            if (i < args.size() - 1 && Commands.is(args.get(i), "COUNT"))
            {
                count = Math.max(0, ValueEdits.integer(args.get(++i)));
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final StreamValue s = map.stream(new Key(args.get(1)), now);
        return s == null ? new Reply.Array(List.of()) : count == 0 ? Reply.NIL_ARRAY :
            entries(s.entries().range(start, end, reverse), count == -1 ? Long.MAX_VALUE : count);
    }

    /** A bound of XRANGE's interval: {@code (id} excludes id (the next or previous ID); Redis's errors past ends. */
    static StreamId interval(final byte[] word, final boolean start)
    {
        final boolean exclude = word.length > 1 && word[0] == '(';
        if (!exclude)
        {
            return StreamId.parse(word, start ? 0 : -1, false);
        }
        final StreamId id = StreamId.parse(Arrays.copyOfRange(word, 1, word.length), start ? 0 : -1, true);
        final StreamId bound = start ? id.next() : id.previous();
        if (bound == null)
        {
            throw new KvStore.SyntaxError(start ? "ERR invalid start ID for the interval" :
                "ERR invalid end ID for the interval");
        }
        return bound;
    }

    /** Up to {@code count} of {@code entries}, each as an array of its ID and an array of its fields and values. */
    static Reply entries(final Map<StreamId, byte[][]> entries, final long count)
    {
        final List<Reply> replies = new ArrayList<>((int)Math.min(count, entries.size()));
        for (final Map.Entry<StreamId, byte[][]> e : entries.entrySet())
        {
            if (replies.size() == count)
            {
                break;
            }
            replies.add(entry(e.getKey(), e.getValue()));
        }
        return new Reply.Array(replies);
    }

    /** An entry as Redis answers it: its ID and its fields and values, or nil for one no longer in the stream. */
    static Reply entry(final StreamId id, final byte[][] fields)
    {
        if (fields == null)
        {
            return new Reply.Array(List.of(new Reply.Bulk(id.bytes()), Reply.NIL_ARRAY));
        }
        final List<Reply> values = new ArrayList<>(fields.length);
        for (final byte[] b : fields)
        {
            values.add(new Reply.Bulk(b));
        }
        return new Reply.Array(List.of(new Reply.Bulk(id.bytes()), new Reply.Array(values)));
    }

    /**
     * XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]: for each stream with entries after
     * its ID ({@code $}: its last ID), the key and up to count of them; nil if none has any (a client's XREAD with
     * BLOCK then waits: {@link BlockedClients}; one in a transaction does not, as in Redis).
     */
    private Reply read(final List<byte[]> args, final long now)
    {
        final StreamReads r = StreamReads.parse(args, false);
        final List<StreamId> after = new ArrayList<>(r.streams);
        for (int i = 0; i < r.streams; i++)
        {
            final StreamValue s = map.stream(new Key(r.key(args, i)), now);
            final byte[] word = r.id(args, i);
            if (word.length == 1 && word[0] == '>')
            {
                return Reply.error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP " +
                    "<group> <consumer> option.");
            }
            after.add(word.length == 1 && word[0] == '$' ? (s == null ? StreamId.MIN : s.entries().lastId()) :
                StreamId.parse(word, 0, true));
        }
        final List<Reply> served = new ArrayList<>();
        for (int i = 0; i < r.streams; i++)
        {
            final StreamValue s = map.stream(new Key(r.key(args, i)), now);
            final StreamId from = s == null ? null : after.get(i).next();
            final Map<StreamId, byte[][]> range = from == null ? Map.of() :
                s.entries().range(from, StreamId.MAX, false);
            if (!range.isEmpty())
            {
                served.add(new Reply.Bulk(r.key(args, i)));
                served.add(entries(range, r.count == 0 ? Long.MAX_VALUE : r.count));
            }
        }
        return !served.isEmpty() ? new Reply.Pairs(served) : Reply.NIL_ARRAY;
    }

    /** XREAD's BLOCK milliseconds, with Redis's errors for one not a whole number or negative. */
    static long blockMilliseconds(final byte[] word)
    {
        final long ms;
        try
        {
            ms = ValueEdits.integer(word);
        }
        catch (final KvStore.SyntaxError ex)
        {
            throw new KvStore.SyntaxError("ERR timeout is not an integer or out of range");
        }
        if (ms < 0)
        {
            throw new KvStore.SyntaxError("ERR timeout is negative");
        }
        return ms;
    }

    /**
     * A blocking XREAD {@code args} that found nothing at {@code now}: each {@code $} replaced by the ID it stood for
     * then, its stream's last ID, so that its looks again read what came after that first look, as Redis does.
     */
    static void resolveLastIds(final Keyspace map, final List<byte[]> args, final long now)
    {
        final StreamReads r = StreamReads.parse(args, false);
        for (int i = 0; i < r.streams; i++)
        {
            final byte[] word = r.id(args, i);
            if (word.length == 1 && word[0] == '$')
            {
                final StreamValue s = map.stream(new Key(r.key(args, i)), now);
                args.set(r.streamsAt + r.streams + i, (s == null ? StreamId.MIN : s.entries().lastId()).bytes());
            }
        }
    }
}
