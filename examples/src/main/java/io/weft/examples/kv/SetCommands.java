package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Redis's commands on sets ({@link Aggregate}): SADD, SREM, SPOP, SMOVE, SINTERSTORE, SUNIONSTORE, SDIFFSTORE (writes,
 * on the delivery thread only) and SISMEMBER, SMISMEMBER, SMEMBERS, SCARD, SSCAN, SRANDMEMBER, SINTER, SUNION, SDIFF,
 * SINTERCARD (reads). A set's last member removed removes its key; a command of another type's key is WRONGTYPE.
 * Members are listed in {@link Key}'s order ({@link FieldScan}), and SPOP takes the first ones in that order: Redis
 * picks at random, which members that apply a write alike cannot; SRANDMEMBER, a read at one member, picks at random
 * (inside a script, which every member runs, from the script's generator: {@link Draws}).
 *
 * @param map the store's keys and values.
 */
record SetCommands(Keyspace map)
{
    /** Runs {@code cmd}, a set's command, or answers the unknown command's error. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "SADD" -> n < 3 ? Reply.wrongArity(cmd) : add(args, now);
            case "SREM" -> n < 3 ? Reply.wrongArity(cmd) :
                new Reply.Int(map.removeFields(new Key(args.get(1)), Key.all(args, 2), now, true));
            case "SISMEMBER" -> n != 3 ? Reply.wrongArity(cmd) : new Reply.Int(isMember(args.get(1), args.get(2), now));
            case "SMISMEMBER" -> n < 3 ? Reply.wrongArity(cmd) : areMembers(args, now);
            case "SMEMBERS" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Set(FieldScan.NAMES.list(set(args.get(1),
                now)));
            case "SCARD" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Int(members(args.get(1), now).size());
            case "SSCAN" -> n < 3 ? Reply.wrongArity(cmd) : FieldScan.parse(args, false).reply(set(args.get(1), now));
            case "SPOP" -> n != 2 && n != 3 ? Reply.wrongArity(cmd) : pop(args, now);
            case "SRANDMEMBER" -> n != 2 && n != 3 ? Reply.wrongArity(cmd) : randomMembers(args, now);
            case "SMOVE" -> n != 4 ? Reply.wrongArity(cmd) : move(args, now);
            case "SINTER", "SUNION", "SDIFF" -> n < 2 ? Reply.wrongArity(cmd) :
                new Reply.Set(listed(combine(cmd.substring(1), args, 1, now)));
            case "SINTERCARD" -> n < 3 ? Reply.wrongArity(cmd) : interCard(args, now);
            case "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE" -> n < 3 ? Reply.wrongArity(cmd) : store(cmd, args, now);
            default -> Reply.unknown(cmd);
        };
    }

    /** {@code key}'s set, null if none; WRONGTYPE if it holds another type. */
    private Aggregate set(final byte[] key, final long now)
    {
        return map.aggregate(new Key(key), now, true);
    }

    /** {@code key}'s members, empty if it has none; WRONGTYPE if it holds another type. */
    private Map<Key, byte[]> members(final byte[] key, final long now)
    {
        return map.fields(new Key(key), now, true);
    }

    private int isMember(final byte[] key, final byte[] member, final long now)
    {
        return members(key, now).containsKey(new Key(member)) ? 1 : 0;
    }

    private Reply areMembers(final List<byte[]> args, final long now)
    {
        final Map<Key, byte[]> members = members(args.get(1), now);
        final List<Reply> found = new ArrayList<>(args.size() - 2);
        for (int i = 2; i < args.size(); i++)
        {
            found.add(new Reply.Int(members.containsKey(new Key(args.get(i))) ? 1 : 0));
        }
        return new Reply.Array(found);
    }

    /** SADD key member [member ...]: the members added. */
    private Reply add(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final Aggregate s = map.forWrite(key, now, true);
        int added = 0;
        for (int i = 2; i < args.size(); i++)
        {
            added += s.fields().put(new Key(args.get(i)), Aggregate.MEMBER) == null ? 1 : 0;
        }
        if (added > 0)
        {
            map.store(key, s);
        }
        return new Reply.Int(added);
    }

    /** SPOP key [count]: the first members in {@link Key}'s order, removed; a bulk (or nil) without count. */
    private Reply pop(final List<byte[]> args, final long now)
    {
        final long count = args.size() == 3 ? ValueEdits.count(args.get(2)) : 1;
        final Key key = new Key(args.get(1));
        final Aggregate live = set(args.get(1), now);
        final List<Key> popped = live == null || count == 0 ? List.of() : map.sorted(key, live).fields().first(count);
        map.removeFields(key, popped, now, true);
        final List<Reply> replies = popped.stream().map(k -> (Reply)new Reply.Bulk(k.bytes())).toList();
        return args.size() == 3 ? new Reply.Set(replies) : replies.isEmpty() ? Reply.NIL : replies.getFirst();
    }

    /**
     * SRANDMEMBER key [count]: a member at random (nil if none); with a positive count that many distinct ones at most,
     * with a negative one that many, a member maybe more than once. Drawn from a list of the members: a walk of the
     * set, where Redis draws from its table (a draw by a lookup at a random hash in the sorted members of a set that
     * saw an SPOP drew one member almost always: the hashes of short keys that differ in a byte lie close together).
     */
    private Reply randomMembers(final List<byte[]> args, final long now)
    {
        final long count = args.size() == 3 ? ValueEdits.integer(args.get(2)) : 1;
        final List<Reply> picked = Draws.pick(new ArrayList<>(members(args.get(1), now).keySet()), count).stream()
            .map(k -> (Reply)new Reply.Bulk(k.bytes())).toList();
        return args.size() == 3 ? new Reply.Array(picked) : picked.isEmpty() ? Reply.NIL : picked.getFirst();
    }

    /**
     * SMOVE source destination member: 1 if it moved (or was in both), 0 if the source lacks it. A missing source is
     * 0 whatever the destination holds, as in Redis; then WRONGTYPE for either key, before anything changes.
     */
    private Reply move(final List<byte[]> args, final long now)
    {
        final Key member = new Key(args.get(3));
        final Key target = new Key(args.get(2));
        if (set(args.get(1), now) == null)
        {
            return new Reply.Int(0);
        }
        set(args.get(2), now);
        if (target.equals(new Key(args.get(1))))
        {
            return new Reply.Int(isMember(args.get(1), args.get(3), now));
        }
        if (map.removeFields(new Key(args.get(1)), List.of(member), now, true) == 0)
        {
            return new Reply.Int(0);
        }
        final Aggregate s = map.forWrite(target, now, true);
        s.fields().put(member, Aggregate.MEMBER);
        map.store(target, s);
        return new Reply.Int(1);
    }

    /**
     * The members of the sets {@code args[from...]} combined by {@code how} (INTER, UNION or DIFF: of the first and
     * not of the others); a missing key is an empty set.
     */
    private java.util.Set<Key> combine(final String how, final List<byte[]> args, final int from, final long now)
    {
        final java.util.Set<Key> result = new java.util.HashSet<>(members(args.get(from), now).keySet());
        for (int i = from + 1; i < args.size(); i++)
        {
            final java.util.Set<Key> other = members(args.get(i), now).keySet();
            switch (how)
            {
                case "INTER" -> result.retainAll(other);
                case "UNION" -> result.addAll(other);
                default -> result.removeAll(other);
            }
        }
        return result;
    }

    private static List<Reply> listed(final java.util.Set<Key> members)
    {
        return members.stream().sorted().map(k -> (Reply)new Reply.Bulk(k.bytes())).toList();
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit]: the intersection's size, at most the limit (0: none). */
    private Reply interCard(final List<byte[]> args, final long now)
    {
        final long keys = ValueEdits.atLeast(args.get(1), 1, "ERR numkeys should be greater than 0");
        if (keys > args.size() - 2)
        {
            return Reply.error("ERR Number of keys can't be greater than number of args");
        }
        final int last = 2 + (int)keys;
        if (last != args.size() && (last + 2 != args.size() || !Commands.word(args.get(last)).equals("LIMIT")))
        {
            return Reply.error("ERR syntax error");
        }
        final long limit = last == args.size() ? 0 : ValueEdits.atLeast(args.get(last + 1), 0,
            "ERR LIMIT can't be negative");
        final int size = combine("INTER", args.subList(0, last), 2, now).size();
        return new Reply.Int(limit == 0 ? size : Math.min(size, limit));
    }

    /** SINTERSTORE, SUNIONSTORE, SDIFFSTORE destination key [key ...]: the result replaces destination; its size. */
    private Reply store(final String cmd, final List<byte[]> args, final long now)
    {
        final java.util.Set<Key> result = combine(cmd.substring(1, cmd.length() - 5), args, 2, now);
        final Key destination = new Key(args.get(1));
        if (result.isEmpty())
        {
            map.remove(destination);
            return new Reply.Int(0);
        }
        final Aggregate s = map.empty(true);
        for (final Key member : result)
        {
            s.fields().put(member, Aggregate.MEMBER);
        }
        map.store(destination, s);
        return new Reply.Int(result.size());
    }
}
