package io.weft.examples.kv;

import io.weft.examples.kv.ZRange.By;

import java.util.ArrayList;
import java.util.List;

/**
 * Redis's commands on sorted sets ({@link ZSetValue}): ZADD, ZINCRBY, ZREM, ZREMRANGEBYRANK, ZREMRANGEBYSCORE,
 * ZREMRANGEBYLEX, ZPOPMIN, ZPOPMAX (writes) and ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZCOUNT, ZLEXCOUNT, ZRANGE,
 * ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX (reads), all on the delivery thread: a
 * sorted set's reads go through the group even with local reads ({@link Commands}), as a list's do. A sorted set's
 * last member removed removes its key; a command on another type's key is WRONGTYPE.
 *
 * @param map the store's keys and values.
 */
record ZSetCommands(Keyspace map)
{
    private static final String NOT_A_FLOAT = "ERR value is not a valid float";
    private static final String SYNTAX = "ERR syntax error";
    /** The most members ZRANDMEMBER with a negative count returns (each may repeat: a reply would be unbounded). */
    private static final long MOST_PICKED = 1_000_000;
    private static final String NAN = "ERR resulting score is not a number (NaN)";

    /** Runs {@code cmd}, a sorted set's command, or answers the unknown command's error. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "ZADD" -> n < 4 ? Reply.wrongArity(cmd) : add(args, now);
            case "ZINCRBY" -> n != 4 ? Reply.wrongArity(cmd) : incrementBy(args, now);
            case "ZREM" -> n < 3 ? Reply.wrongArity(cmd) : remove(args, now);
            case "ZCARD" -> n != 2 ? Reply.wrongArity(cmd) : new Reply.Int(size(zset(args, now)));
            case "ZSCORE" -> n != 3 ? Reply.wrongArity(cmd) : score(zset(args, now), args.get(2));
            case "ZMSCORE" -> n < 3 ? Reply.wrongArity(cmd) : scores(args, now);
            case "ZRANK", "ZREVRANK" -> n != 3 && n != 4 ? Reply.wrongArity(cmd) : rank(cmd.length() == 8, args, now);
            case "ZCOUNT" -> n != 4 ? Reply.wrongArity(cmd) : count(By.SCORE, args, now);
            case "ZLEXCOUNT" -> n != 4 ? Reply.wrongArity(cmd) : count(By.LEX, args, now);
            case "ZRANGE" -> n < 4 ? Reply.wrongArity(cmd) : range(args, null, false, now, null);
            case "ZREVRANGE" -> n < 4 ? Reply.wrongArity(cmd) : range(args, By.RANK, true, now, null);
            case "ZRANGEBYSCORE" -> n < 4 ? Reply.wrongArity(cmd) : range(args, By.SCORE, false, now, null);
            case "ZREVRANGEBYSCORE" -> n < 4 ? Reply.wrongArity(cmd) : range(args, By.SCORE, true, now, null);
            case "ZRANGEBYLEX" -> n < 4 ? Reply.wrongArity(cmd) : range(args, By.LEX, false, now, null);
            case "ZREVRANGEBYLEX" -> n < 4 ? Reply.wrongArity(cmd) : range(args, By.LEX, true, now, null);
            case "ZREMRANGEBYRANK" -> n != 4 ? Reply.wrongArity(cmd) : removeRange(By.RANK, args, now);
            case "ZREMRANGEBYSCORE" -> n != 4 ? Reply.wrongArity(cmd) : removeRange(By.SCORE, args, now);
            case "ZREMRANGEBYLEX" -> n != 4 ? Reply.wrongArity(cmd) : removeRange(By.LEX, args, now);
            case "ZPOPMIN", "ZPOPMAX" -> n != 2 && n != 3 ? Reply.wrongArity(cmd) : pop(cmd.endsWith("MIN"), args, now);
            case "ZMPOP" -> n < 4 ? Reply.wrongArity(cmd) : multiPop(args, now);
            case "BZPOPMIN", "BZPOPMAX" -> n < 3 ? Reply.wrongArity(cmd) : blockingPop(cmd.endsWith("MIN"), args, now);
            case "BZMPOP" -> n < 5 ? Reply.wrongArity(cmd) : blockingMultiPop(args, now);
            case "ZRANGESTORE" -> n < 5 ? Reply.wrongArity(cmd) : range(args.subList(1, n), null, false, now,
                new Key(args.get(1)));
            case "ZRANDMEMBER" -> n < 2 ? Reply.wrongArity(cmd) : randomMembers(args, now);
            case "ZSCAN" -> n < 3 ? Reply.wrongArity(cmd) : scan(args, now);
            case "ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD" -> n < 3 ? Reply.wrongArity(cmd) :
                new ZSetAlgebra(map).apply(cmd, args, now);
            case "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE" -> n < 4 ? Reply.wrongArity(cmd) :
                new ZSetAlgebra(map).apply(cmd, args, now);
            default -> Reply.unknown(cmd);
        };
    }

    private ZSetValue zset(final List<byte[]> args, final long now)
    {
        return map.zset(new Key(args.get(1)), now);
    }

    private static int size(final ZSetValue z)
    {
        return z == null ? 0 : z.members().size();
    }

    /**
     * ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]: the members added (and changed, CH), or
     * with INCR the member's new score, nil where a condition kept it; every score is checked before any change.
     */
    private Reply add(final List<byte[]> args, final long now)
    {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = false;
        int at = 2;
        for (boolean option = true; option && at < args.size(); )
        {
            switch (Commands.word(args.get(at)))
            {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GT" -> gt = true;
                case "LT" -> lt = true;
                case "CH" -> ch = true;
                case "INCR" -> incr = true;
                default -> option = false;
            }
            at += option ? 1 : 0;
        }
        final int elements = args.size() - at;
        if (elements == 0 || elements % 2 != 0)
        {
            return Reply.error(SYNTAX);
        }
        if (nx && xx)
        {
            return Reply.error("ERR XX and NX options at the same time are not compatible");
        }
        if (gt && nx || lt && nx || gt && lt)
        {
            return Reply.error("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 2)
        {
            return Reply.error("ERR INCR option supports a single increment-element pair");
        }
        final double[] scores = new double[elements / 2];
        for (int i = 0; i < scores.length; i++)
        {
            scores[i] = ZSetValue.parse(args.get(at + 2 * i), NOT_A_FLOAT, map.redisNumbers());
        }
        final Key key = new Key(args.get(1));
        final ZSetValue live = map.zset(key, now);
        if (live == null && xx)
        {
            return incr ? Reply.NIL : new Reply.Int(0);
        }
        final ZSetValue z = map.writableZSet(live);
        int added = 0;
        int changed = 0;
        double last = 0;
        boolean kept = false;
        for (int i = 0; i < scores.length; i++)
        {
            final byte[] member = args.get(at + 2 * i + 1);
            final ZSetValue.Node old = z.members().get(member);
            double score = scores[i];
            if (old == null)
            {
                kept = xx;
                if (!xx)
                {
                    z.members().put(member, score);
                    added++;
                }
            }
            else
            {
                score = incr ? old.score + score : score;
                if (Double.isNaN(score))
                {
                    return Reply.error(NAN);
                }
                kept = nx || lt && score >= old.score || gt && score <= old.score;
                if (!kept && score != old.score)
                {
                    z.members().put(member, score);
                    changed++;
                }
            }
            last = score;
        }
        if (added + changed > 0)
        {
            map.storeOrRemove(key, z);
        }
        return incr ? kept ? Reply.NIL : new Reply.Double(last) : new Reply.Int(ch ? added + changed : added);
    }

    /** ZINCRBY key increment member: the member's new score (added at the increment if it was not a member). */
    private Reply incrementBy(final List<byte[]> args, final long now)
    {
        final double by = ZSetValue.parse(args.get(2), NOT_A_FLOAT, map.redisNumbers());
        final Key key = new Key(args.get(1));
        final ZSetValue z = map.writableZSet(map.zset(key, now));
        final ZSetValue.Node old = z.members().get(args.get(3));
        final double score = old == null ? by : old.score + by;
        if (Double.isNaN(score))
        {
            return Reply.error(NAN);
        }
        z.members().put(args.get(3), score);
        map.store(key, z);
        return new Reply.Double(score);
    }

    /** ZREM key member [member ...]: how many were members. */
    private Reply remove(final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final ZSetValue live = map.zset(key, now);
        if (live == null)
        {
            return new Reply.Int(0);
        }
        final ZSetValue z = map.writableZSet(live);
        int removed = 0;
        for (int i = 2; i < args.size(); i++)
        {
            removed += z.members().remove(args.get(i)) ? 1 : 0;
        }
        if (removed > 0)
        {
            map.storeOrRemove(key, z);
        }
        return new Reply.Int(removed);
    }

    private static Reply score(final ZSetValue z, final byte[] member)
    {
        final ZSetValue.Node node = z == null ? null : z.members().get(member);
        return node == null ? Reply.NIL : new Reply.Double(node.score);
    }

    /** ZMSCORE key member [member ...]: each member's score, nil for one that is not a member. */
    private Reply scores(final List<byte[]> args, final long now)
    {
        final ZSetValue z = zset(args, now);
        final List<Reply> scores = new ArrayList<>(args.size() - 2);
        for (int i = 2; i < args.size(); i++)
        {
            scores.add(score(z, args.get(i)));
        }
        return new Reply.Array(scores);
    }

    /** ZRANK, ZREVRANK key member [WITHSCORE]: the member's rank (and score), nil if it is not a member. */
    private Reply rank(final boolean reverse, final List<byte[]> args, final long now)
    {
        final boolean withScore = args.size() == 4;
        if (withScore && !Commands.word(args.get(3)).equals("WITHSCORE"))
        {
            return Reply.error(SYNTAX);
        }
        final ZSetValue z = zset(args, now);
        final ZSetValue.Node node = z == null ? null : z.members().get(args.get(2));
        if (node == null)
        {
            return withScore ? Reply.NIL_ARRAY : Reply.NIL;
        }
        final int rank = z.members().rank(node);
        final Reply.Int r = new Reply.Int(reverse ? z.members().size() - 1 - rank : rank);
        return withScore ? new Reply.Array(List.of(r, new Reply.Double(node.score))) : r;
    }

    /** ZCOUNT key min max, ZLEXCOUNT key min max: how many members the range holds. */
    private Reply count(final By by, final List<byte[]> args, final long now)
    {
        final ZRange range = ZRange.of(by, args.get(2), args.get(3), map.redisNumbers());
        final int[] ranks = range.ranks(zset(args, now), false);
        return new Reply.Int(ranks[1] - ranks[0]);
    }

    /**
     * ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES] ({@code fixed} null), and the
     * older forms, whose selection ({@code fixed}) and direction ({@code reverse}) their name gives. A reverse range
     * by score or member names its bounds high one first. ZRANGESTORE's arguments from its source key on, with
     * {@code destination}: the range replaces what it holds (no WITHSCORES), and the reply is its size.
     */
    private Reply range(final List<byte[]> args, final By fixed, final boolean reverse, final long now,
        final Key destination)
    {
        By by = fixed;
        boolean rev = reverse;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        boolean limited = false;
        for (int i = 4; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("WITHSCORES") && destination == null)
            {
                withScores = true;
            }
            else if (option.equals("LIMIT") && args.size() - i - 1 >= 2)
            {
                offset = ValueEdits.integer(args.get(++i));
                limit = ValueEdits.integer(args.get(++i));
                limited = true;
            }
            else if (fixed == null && !rev && option.equals("REV"))
            {
                rev = true;
            }
            else if (fixed == null && by == null && (option.equals("BYSCORE") || option.equals("BYLEX")))
            {
                by = option.equals("BYSCORE") ? By.SCORE : By.LEX;
            }
            else
            {
                return Reply.error(SYNTAX);
            }
        }
        by = by == null ? By.RANK : by;
        if (limited && by == By.RANK)
        {
            return Reply.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        if (withScores && by == By.LEX)
        {
            return Reply.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        final boolean boundsSwapped = rev && by != By.RANK;
        final byte[] low = args.get(boundsSwapped ? 3 : 2);
        final byte[] high = args.get(boundsSwapped ? 2 : 3);
        final ZRange bounds = ZRange.of(by, low, high, map.redisNumbers()); // its error before the key's type
        final ZSetValue z = zset(args, now);
        final int[] selected = bounds.ranks(z, rev);
        final List<Reply> replies = new ArrayList<>();
        final ZSetValue stored = destination == null ? null : map.writableZSet(null); // a new one, for ZRANGESTORE
        final long count = selected[1] - selected[0];
        for (long i = offset; i >= 0 && i < count && (limit < 0 || i - offset < limit); i++) // LIMIT -1: none
        {
            final ZSetValue.Node node = z.members().at((int)(rev ? selected[1] - 1 - i : selected[0] + i));
            if (stored != null)
            {
                stored.members().put(node.member, node.score);
                continue;
            }
            replies.add(new Reply.Bulk(node.member));
            if (withScores)
            {
                replies.add(new Reply.Double(node.score));
            }
        }
        if (stored != null)
        {
            map.storeOrRemove(destination, stored); // replaces what it held, expiry too; an empty range removes it
            return new Reply.Int(stored.members().size());
        }
        return withScores ? new Reply.Scored(replies) : new Reply.Array(replies);
    }

    /** ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX key low high: how many members the range held. */
    private Reply removeRange(final By by, final List<byte[]> args, final long now)
    {
        final Key key = new Key(args.get(1));
        final ZRange range = ZRange.of(by, args.get(2), args.get(3), map.redisNumbers());
        final ZSetValue live = map.zset(key, now);
        final int[] ranks = range.ranks(live, false);
        final int count = ranks[1] - ranks[0];
        if (count > 0)
        {
            final ZSetValue z = map.writableZSet(live);
            final List<byte[]> members = new ArrayList<>(count);
            for (int i = ranks[0]; i < ranks[1]; i++)
            {
                members.add(z.members().at(i).member);
            }
            for (final byte[] member : members)
            {
                z.members().remove(member);
            }
            map.storeOrRemove(key, z);
        }
        return new Reply.Int(count);
    }

    /**
     * ZPOPMIN, ZPOPMAX key [count]: the lowest (highest) members with their scores, removed; without a count one
     * member and its score.
     */
    private Reply pop(final boolean min, final List<byte[]> args, final long now)
    {
        final long count = args.size() == 3 ? ValueEdits.count(args.get(2)) : 1;
        final Key key = new Key(args.get(1));
        final List<Reply> popped = pop(key, map.zset(key, now), min, count);
        return args.size() == 3 ? new Reply.Scored(popped) : new Reply.Array(popped);
    }

    /** Up to {@code count} of {@code live}'s lowest (highest) members, removed, each followed by its score. */
    private List<Reply> pop(final Key key, final ZSetValue live, final boolean min, final long count)
    {
        final List<Reply> popped = new ArrayList<>();
        if (live != null && count > 0)
        {
            final ZSetValue z = map.writableZSet(live);
            while (popped.size() / 2 < count && z.members().size() > 0) // a member and its score each
            {
                final ZSetValue.Node node = z.members().at(min ? 0 : z.members().size() - 1);
                z.members().remove(node.member);
                popped.add(new Reply.Bulk(node.member));
                popped.add(new Reply.Double(node.score));
            }
            map.storeOrRemove(key, z);
        }
        return popped;
    }

    /**
     * BZPOPMIN, BZPOPMAX key [key ...] timeout, as applied at every member: the key, member and score popped from the
     * first of the sorted sets with members, nil if none has any (its origin then waits: {@link BlockedClients}).
     */
    private Reply blockingPop(final boolean min, final List<byte[]> args, final long now)
    {
        BlockedClients.timeout(args.getLast());
        final int i = map.firstLive(args, 1, args.size() - 1, ZSetValue.class, now);
        if (i < 0)
        {
            return Reply.NIL_ARRAY;
        }
        final Key key = new Key(args.get(i));
        final List<Reply> popped = new ArrayList<>(List.of(new Reply.Bulk(args.get(i))));
        popped.addAll(pop(key, map.zset(key, now), min, 1));
        return new Reply.Array(popped);
    }

    /** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count], as applied at every member: ZMPOP's answer. */
    private Reply blockingMultiPop(final List<byte[]> args, final long now)
    {
        BlockedClients.timeout(args.get(1));
        return multiPop(args.subList(1, args.size()), now);
    }

    /**
     * ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]: the first key with members and what ZPOPMIN or ZPOPMAX with
     * the count popped from it, as (member, score) pairs; nil if every key is empty.
     */
    private Reply multiPop(final List<byte[]> args, final long now)
    {
        final MultiPop m = MultiPop.parse(args, "MIN", "MAX");
        final int i = map.firstLive(args, m.first(), m.end(), ZSetValue.class, now);
        if (i < 0)
        {
            return Reply.NIL_ARRAY;
        }
        final Key key = new Key(args.get(i));
        final List<Reply> popped = pop(key, map.zset(key, now), m.head(), m.count());
        final List<Reply> pairs = new ArrayList<>();
        for (int p = 0; p < popped.size(); p += 2)
        {
            pairs.add(new Reply.Array(popped.subList(p, p + 2)));
        }
        return new Reply.Array(List.of(new Reply.Bulk(args.get(i)), new Reply.Array(pairs)));
    }

    /**
     * ZRANDMEMBER key [count [WITHSCORES]]: a member at random (nil if none); with a positive count that many distinct
     * ones at most, with a negative one that many, a member maybe more than once (at one member: a read).
     */
    private Reply randomMembers(final List<byte[]> args, final long now)
    {
        final int n = args.size();
        if (n > 4 || n == 4 && !Commands.word(args.get(3)).equals("WITHSCORES"))
        {
            return Reply.error(SYNTAX);
        }
        final long count = n >= 3 ? ValueEdits.integer(args.get(2)) : 1;
        if (count < -MOST_PICKED)
        {
            return Reply.error("ERR value is out of range: at most " + MOST_PICKED + " members a call here");
        }
        final ZSetValue z = zset(args, now);
        final List<ZSetValue.Node> all = new ArrayList<>();
        for (int i = 0; i < size(z); i++)
        {
            all.add(z.members().at(i));
        }
        final java.util.random.RandomGenerator random = Draws.current();
        final List<Reply> picked = new ArrayList<>();
        if (count >= all.size())
        {
            picked.addAll(all.stream().map(node -> (Reply)new Reply.Bulk(node.member)).toList());
        }
        for (int i = 0; i < Math.abs(count) && count < all.size() && !all.isEmpty(); i++)
        {
            if (count > 0) // the first of a partial shuffle
            {
                java.util.Collections.swap(all, i, i + random.nextInt(all.size() - i));
            }
            picked.add(new Reply.Bulk(all.get(count > 0 ? i : random.nextInt(all.size())).member));
        }
        if (n < 3)
        {
            return picked.isEmpty() ? Reply.NIL : picked.getFirst();
        }
        if (n == 3)
        {
            return new Reply.Array(picked);
        }
        final List<Reply> scored = new ArrayList<>();
        for (final Reply member : picked)
        {
            scored.add(member);
            scored.add(new Reply.Double(z.members().get(((Reply.Bulk)member).bytes()).score));
        }
        return new Reply.Scored(scored);
    }

    /** ZSCAN key 0 [MATCH pattern] [COUNT n]: every member that matches and its score, at cursor 0 (see FieldScan). */
    private Reply scan(final List<byte[]> args, final long now)
    {
        final FieldScan scan = FieldScan.parse(args, false);
        final ZSetValue z = zset(args, now);
        final List<Reply> found = new ArrayList<>();
        for (int i = 0; i < size(z); i++)
        {
            final ZSetValue.Node node = z.members().at(i);
            if (scan.matches(node.member))
            {
                found.add(new Reply.Bulk(node.member));
                found.add(Reply.Bulk.of(ZSetValue.format(node.score))); // a string in RESP3 too, as Redis answers
            }
        }
        return FieldScan.reply(found);
    }
}
