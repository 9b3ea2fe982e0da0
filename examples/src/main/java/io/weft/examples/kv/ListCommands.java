package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis's commands on lists ({@link ListValue}): LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LSET, LREM, LTRIM, LINSERT,
 * LMOVE, RPOPLPUSH, LMPOP, and the blocking BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP (writes, on the delivery thread
 * only; the blocking ones apply as their non-blocking forms, and their origin makes the client wait: {@link
 * BlockedClients}) and LLEN, LINDEX, LRANGE, LPOS (reads, on the delivery thread too: they go through the group even
 * with local reads, {@link Commands}). A list's last item removed removes its key; a command of another type's key is
 * WRONGTYPE.
 *
 * @param map the store's keys and values.
 */
record ListCommands(Keyspace map)
{
    /** Runs {@code cmd}, a list's command, or answers the unknown command's error. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "LPUSH", "RPUSH", "LPUSHX", "RPUSHX" -> n < 3 ? Reply.wrongArity(cmd) : push(cmd, args, now);
            case "LPOP", "RPOP" -> n != 2 && n != 3 ? Reply.wrongArity(cmd) : pop(cmd.charAt(0) == 'L', args, now);
            case "LLEN" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Int(size(map.list(new Key(args.get(1)), now)));
            case "LINDEX" -> n != 3 ? Reply.wrongArity(cmd) : index(args, now);
            case "LRANGE" -> n != 4 ? Reply.wrongArity(cmd) : range(args, now);
            case "LSET" -> n != 4 ? Reply.wrongArity(cmd) : set(args, now);
            case "LREM" -> n != 4 ? Reply.wrongArity(cmd) : remove(args, now);
            case "LTRIM" -> n != 4 ? Reply.wrongArity(cmd) : trim(args, now);
            case "LINSERT" -> n != 5 ? Reply.wrongArity(cmd) : insert(args, now);
            case "LPOS" -> n < 3 ? Reply.wrongArity(cmd) : position(args, now);
            case "LMOVE" -> n != 5 ? Reply.wrongArity(cmd) : move(args.get(1), args.get(2), left(args.get(3)),
                left(args.get(4)), now);
            case "RPOPLPUSH" -> n != 3 ? Reply.wrongArity(cmd) : move(args.get(1), args.get(2), false, true, now);
            case "BLPOP", "BRPOP" -> n < 3 ? Reply.wrongArity(cmd) : blockingPop(cmd.charAt(1) == 'L', args, now);
            case "BLMOVE" -> n != 6 ? Reply.wrongArity(cmd) : blockingMove(args, left(args.get(3)), left(args.get(4)),
                now);
            case "BRPOPLPUSH" -> n != 4 ? Reply.wrongArity(cmd) : blockingMove(args, false, true, now);
            case "LMPOP" -> n < 4 ? Reply.wrongArity(cmd) : multiPop(args, now);
            case "BLMPOP" -> n < 5 ? Reply.wrongArity(cmd) : blockingMultiPop(args, now);
            default -> Reply.unknown(cmd);
        };
    }

    private static int size(final ListValue l)
    {
        return l == null ? 0 : l.items().size();
    }

    /** LPUSH, RPUSH key item [item ...] (the X forms only onto a list that exists): the list's length after. */
    private Reply push(final String cmd, final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        if (live == null && cmd.endsWith("X"))
        {
            return new Reply.Int(0);
        }
        final ListValue l = map.writableList(live);
        for (int i = 2; i < args.size(); i++)
        {
            if (cmd.charAt(0) == 'L')
            {
                l.items().addFirst(args.get(i));
            }
            else
            {
                l.items().addLast(args.get(i));
            }
        }
        map.store(key, l);
        return new Reply.Int(l.items().size());
    }

    /** LPOP, RPOP key [count]: an item (nil if none), or with a count up to that many (nil if no list). */
    private Reply pop(final boolean left, final List<byte[]> args, final long now)
    {
        final long count = args.size() == 3 ? ValueEdits.count(args.get(2)) : 1;
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        if (live == null)
        {
            return args.size() == 3 ? Reply.NIL_ARRAY : Reply.NIL;
        }
        final List<Reply> popped = count > 0 ? pop(key, live, left, count) : List.of();
        return args.size() == 3 ? new Reply.Array(popped) : popped.getFirst();
    }

    /** Pops up to {@code count} (1 or more) items from the {@code left} or right end of {@code live}, {@code key}'s. */
    private List<Reply> pop(final Key key, final ListValue live, final boolean left, final long count)
    {
        final List<Reply> popped = new ArrayList<>();
        final ListValue l = map.writableList(live);
        while (popped.size() < count && l.items().size() > 0)
        {
            popped.add(new Reply.Bulk(left ? l.items().removeFirst() : l.items().removeLast()));
        }
        map.storeOrRemove(key, l);
        return popped;
    }

    /**
     * LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: the first key with items and up to count of them popped
     * from that end; nil if every list is empty.
     */
    private Reply multiPop(final List<byte[]> args, final long now)
    {
        final MultiPop m = MultiPop.parse(args, "LEFT", "RIGHT");
        final int i = map.firstLive(args, m.first(), m.end(), ListValue.class, now);
        if (i < 0)
        {
            return Reply.NIL_ARRAY;
        }
        final Key key = new Key(args.get(i));
        return new Reply.Array(List.of(new Reply.Bulk(args.get(i)),
            new Reply.Array(pop(key, map.list(key, now), m.head(), m.count()))));
    }

    /** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count], as applied at every member: LMPOP's answer. */
    private Reply blockingMultiPop(final List<byte[]> args, final long now)
    {
        BlockedClients.timeout(args.get(1));
        return multiPop(args.subList(1, args.size()), now);
    }

    /** LINDEX key index (negative: from the tail): the item, nil if out of range; the key read first, as in Redis. */
    private Reply index(final List<byte[]> args, final long now)
    {
        final ListValue l = map.list(new Key(args.get(1)), now);
        if (l == null)
        {
            return Reply.NIL;
        }
        final long index = ValueEdits.integer(args.get(2));
        final long at = index < 0 ? size(l) + index : index;
        return at < 0 || at >= size(l) ? Reply.NIL : new Reply.Bulk(l.items().get((int)at));
    }

    /** LRANGE key start stop: the items between, both included, each negative from the tail. */
    private Reply range(final List<byte[]> args, final long now)
    {
        final long start = ValueEdits.integer(args.get(2));
        final long stop = ValueEdits.integer(args.get(3));
        final ListValue l = map.list(new Key(args.get(1)), now);
        final int[] span = span(size(l), start, stop);
        final List<Reply> items = new ArrayList<>(Math.max(0, span[1] - span[0] + 1));
        for (int i = span[0]; i <= span[1]; i++)
        {
            items.add(new Reply.Bulk(l.items().get(i)));
        }
        return new Reply.Array(items);
    }

    /**
     * The indexes from {@code start} to {@code stop} of a list of {@code size} items, each negative from the tail, as
     * Redis clips them: {from, to}, empty (to below from) where they select nothing.
     */
    private static int[] span(final int size, final long start, final long stop)
    {
        final long from = Math.max(0, start < 0 ? size + start : start);
        final long to = Math.min(size - 1L, stop < 0 ? size + stop : stop);
        return from > to || from >= size ? new int[] {0, -1} : new int[] {(int)from, (int)to};
    }

    /** LSET key index item: OK; an error if there is no list (checked before the index, as in Redis) or no item. */
    private Reply set(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        if (live == null)
        {
            return Reply.error("ERR no such key");
        }
        final long index = ValueEdits.integer(args.get(2));
        final long at = index < 0 ? size(live) + index : index;
        if (at < 0 || at >= size(live))
        {
            return Reply.error("ERR index out of range");
        }
        final ListValue l = map.writableList(live);
        l.items().set((int)at, args.get(3));
        map.store(key, l);
        return Reply.OK;
    }

    /** LREM key count item: removes the first count equal items (from the tail if negative, all for 0). */
    private Reply remove(final List<byte[]> args, final long now)
    {
        final long count = ValueEdits.integer(args.get(2));
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        final byte[] item = args.get(3);
        final int size = size(live);
        final List<byte[]> kept = new ArrayList<>(size);
        long removed = 0;
        for (int i = 0; i < size; i++)
        {
            final byte[] next = live.items().get(count < 0 ? size - 1 - i : i);
            if ((count == 0 || removed < Math.abs(count)) && Arrays.equals(next, item))
            {
                removed++;
            }
            else
            {
                kept.add(next);
            }
        }
        if (removed > 0)
        {
            final ListValue l = map.writableList(live);
            l.items().replace(count < 0 ? kept.reversed() : kept);
            map.storeOrRemove(key, l);
        }
        return new Reply.Int(removed);
    }

    /** LTRIM key start stop: keeps the items between, as LRANGE selects them. */
    private Reply trim(final List<byte[]> args, final long now)
    {
        final long start = ValueEdits.integer(args.get(2));
        final long stop = ValueEdits.integer(args.get(3));
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        final int[] span = span(size(live), start, stop);
        if (live != null && span[1] - span[0] + 1 < size(live))
        {
            final ListValue l = map.writableList(live);
            l.items().replace(l.items().range(span[0], span[1]));
            map.storeOrRemove(key, l);
        }
        return Reply.OK;
    }

    /** LINSERT key BEFORE|AFTER pivot item: the length after, -1 without the pivot, 0 without the list. */
    private Reply insert(final List<byte[]> args, final long now)
    {
        final String where = Commands.word(args.get(2));
        if (!where.equals("BEFORE") && !where.equals("AFTER"))
        {
            return Reply.error("ERR syntax error");
        }
        final Key key = new Key(args.get(1));
        final ListValue live = map.list(key, now);
        final int size = size(live);
        for (int i = 0; i < size; i++)
        {
            if (Arrays.equals(live.items().get(i), args.get(3)))
            {
                final ListValue l = map.writableList(live);
                final List<byte[]> items = l.items().range(0, size - 1);
                items.add(where.equals("BEFORE") ? i : i + 1, args.get(4));
                l.items().replace(items);
                map.store(key, l);
                return new Reply.Int(size + 1);
            }
        }
        return new Reply.Int(live == null ? 0 : -1);
    }

    /**
     * LPOS key item [RANK rank] [COUNT count] [MAXLEN len]: the index of the rank-th match (from the tail if negative),
     * nil if none; with COUNT, up to that many (0: all), an array. MAXLEN compares that many items at most (0: all).
     */
    private Reply position(final List<byte[]> args, final long now)
    {
        long rank = 1;
        long count = -1;
        long maxLength = 0;
        for (int i = 3; i < args.size(); i += 2)
        {
            final String option = Commands.word(args.get(i));
            if (i + 1 == args.size() || !List.of("RANK", "COUNT", "MAXLEN").contains(option))
            {
                return Reply.error("ERR syntax error");
            }
            final long value = option.equals("RANK") ? ValueEdits.integer(args.get(i + 1)) :
                ValueEdits.atLeast(args.get(i + 1), 0, "ERR " + option + " can't be negative"); // also for a word
            switch (option)
            {
                case "RANK" -> rank = value;
                case "COUNT" -> count = value;
                default -> maxLength = value;
            }
            if (option.equals("RANK") && (value == 0 || value == Long.MIN_VALUE))
            {
                return Reply.error(value == 0 ? "ERR RANK can't be zero: use 1 to start from the first match, 2 " +
                    "from the second ... or use negative to start from the end of the list" :
                    "ERR value is out of range");
            }
        }
        final ListValue l = map.list(new Key(args.get(1)), now);
        final int size = size(l);
        final List<Reply> found = new ArrayList<>();
        long skip = Math.abs(rank) - 1;
        for (int step = 0; step < size && (maxLength == 0 || step < maxLength) &&
            (count <= 0 || found.size() < count); step++)
        {
            final int i = rank > 0 ? step : size - 1 - step;
            if (Arrays.equals(l.items().get(i), args.get(2)) && skip-- == 0)
            {
                found.add(new Reply.Int(i));
                skip = 0;
                if (count < 0)
                {
                    break;
                }
            }
        }
        return count >= 0 ? new Reply.Array(found) : found.isEmpty() ? Reply.NIL : found.getFirst();
    }

    /**
     * LMOVE source destination LEFT|RIGHT LEFT|RIGHT (RPOPLPUSH: RIGHT, LEFT): moves an item from one end of source to
     * one end of destination, which may be source; the item, nil without a source list.
     */
    private Reply move(final byte[] source, final byte[] destination, final boolean fromLeft, final boolean toLeft,
        final long now)
    {
        final Key from = new Key(source);
        final Key to = new Key(destination);
        final ListValue live = map.list(from, now);
        if (live == null)
        {
            return Reply.NIL;
        }
        final ListValue target = from.equals(to) ? null : map.list(to, now); // WRONGTYPE before anything moves
        final ListValue l = map.writableList(live);
        final byte[] item = fromLeft ? l.items().removeFirst() : l.items().removeLast();
        final ListValue d = from.equals(to) ? l : map.writableList(target);
        if (toLeft)
        {
            d.items().addFirst(item);
        }
        else
        {
            d.items().addLast(item);
        }
        if (d != l)
        {
            map.storeOrRemove(from, l);
        }
        map.store(to, d);
        return new Reply.Bulk(item);
    }

    /**
     * BLPOP, BRPOP key [key ...] timeout, as applied at every member: the key and an item of the first of the lists
     * that holds one, or nil; its origin makes a client wait for an item ({@link BlockedClients}).
     */
    private Reply blockingPop(final boolean left, final List<byte[]> args, final long now)
    {
        BlockedClients.timeout(args.getLast());
        final int i = map.firstLive(args, 1, args.size() - 1, ListValue.class, now);
        if (i < 0)
        {
            return Reply.NIL_ARRAY;
        }
        final Key key = new Key(args.get(i));
        return new Reply.Array(List.of(new Reply.Bulk(args.get(i)), pop(key, map.list(key, now), left, 1).getFirst()));
    }

    /** BLMOVE, BRPOPLPUSH as applied at every member: LMOVE's, once their timeout (the last word) is one. */
    private Reply blockingMove(final List<byte[]> args, final boolean fromLeft, final boolean toLeft, final long now)
    {
        BlockedClients.timeout(args.getLast());
        return move(args.get(1), args.get(2), fromLeft, toLeft, now);
    }

    /** LMOVE's LEFT (true) or RIGHT (false), in any case; a syntax error otherwise. */
    private static boolean left(final byte[] direction)
    {
        final String d = Commands.word(direction);
        if (!d.equals("LEFT") && !d.equals("RIGHT"))
        {
            throw new KvStore.SyntaxError("ERR syntax error");
        }
        return d.equals("LEFT");
    }
}
