package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Redis's algebra of sorted sets: ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE (writes) and ZUNION, ZINTER, ZDIFF, ZINTERCARD
 * (reads). An input may be a set, its members each of score 1, as in Redis. Scores combine as Redis combines them:
 * each multiplied by its key's weight, summed (or the least or greatest taken) in the order Redis takes the keys (the
 * smallest first, the first kept first for a difference), a NaN that an infinite sum or weight makes taken as 0.
 *
 * @param map the store's keys and values.
 */
record ZSetAlgebra(Keyspace map)
{
    private static final String SYNTAX = "ERR syntax error";

    /** How the scores of a member in several inputs combine (AGGREGATE). */
    private enum Combine
    {
        SUM, MIN, MAX
    }

    /** One input: its members and scores (null: no such key) and its weight. */
    private record Input(Map<Key, Double> scores, double weight)
    {
        int size()
        {
            return scores == null ? 0 : scores.size();
        }
    }

    /** Runs {@code cmd}, one of the class's commands, whose arity the table checked. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        final boolean store = cmd.endsWith("STORE");
        final String op = cmd.substring(1, store ? cmd.length() - 5 : cmd.length());
        final int numKeysAt = store ? 2 : 1;
        final long keys = ValueEdits.integer(args.get(numKeysAt));
        if (keys < 1)
        {
            return Reply.error("ERR at least 1 input key is needed for '" + cmd.toLowerCase(java.util.Locale.ROOT) +
                "' command");
        }
        if (keys > args.size() - numKeysAt - 1)
        {
            return Reply.error(SYNTAX);
        }
        final int first = numKeysAt + 1;
        final List<Input> inputs = new ArrayList<>();
        for (int i = 0; i < keys; i++)
        {
            inputs.add(new Input(scores(args.get(first + i), now), 1));
        }
        final boolean card = op.equals("INTERCARD");
        Combine aggregate = Combine.SUM;
        boolean withScores = false;
        long limit = 0;
        for (int j = first + (int)keys; j < args.size(); j++)
        {
            final String option = Commands.word(args.get(j));
            final int more = args.size() - j - 1;
            if (!op.equals("DIFF") && !card && more >= keys && option.equals("WEIGHTS"))
            {
                for (int i = 0; i < keys; i++)
                {
                    inputs.set(i, new Input(inputs.get(i).scores, ZSetValue.parse(args.get(++j),
                        "ERR weight value is not a float", map.redisNumbers())));
                }
            }
            else if (!op.equals("DIFF") && !card && more >= 1 && option.equals("AGGREGATE"))
            {
                final String how = Commands.word(args.get(++j));
                if (!how.equals("SUM") && !how.equals("MIN") && !how.equals("MAX"))
                {
                    return Reply.error(SYNTAX);
                }
                aggregate = Combine.valueOf(how);
            }
            else if (!store && !card && option.equals("WITHSCORES"))
            {
                withScores = true;
            }
            else if (card && more >= 1 && option.equals("LIMIT"))
            {
                limit = ValueEdits.atLeast(args.get(++j), 0, "ERR LIMIT can't be negative");
            }
            else
            {
                return Reply.error(SYNTAX);
            }
        }
        final Map<Key, Double> result = op.equals("UNION") ? union(inputs, aggregate) : op.equals("DIFF") ?
            difference(inputs) : intersection(inputs, aggregate);
        if (card)
        {
            return new Reply.Int(limit == 0 ? result.size() : Math.min(result.size(), limit));
        }
        return store ? store(new Key(args.get(1)), result) : reply(result, withScores);
    }

    /** {@code key}'s members and scores: a sorted set's, or a set's each of score 1; null if none, WRONGTYPE. */
    private Map<Key, Double> scores(final byte[] key, final long now)
    {
        final Object stored = map.liveStored(key, now);
        final Map<Key, Double> scores = new LinkedHashMap<>();
        if (stored instanceof ZSetValue z)
        {
            for (int i = 0; i < z.members().size(); i++)
            {
                final ZSetValue.Node node = z.members().at(i);
                scores.put(new Key(node.member), node.score);
            }
        }
        else if (stored instanceof Aggregate a && a.set())
        {
            a.fields().map.keySet().forEach(member -> scores.put(member, 1.0));
        }
        else if (stored != null)
        {
            throw new KvStore.SyntaxError(Keyspace.WRONG_TYPE);
        }
        return stored == null ? null : scores;
    }

    private static Map<Key, Double> union(final List<Input> inputs, final Combine aggregate)
    {
        final Map<Key, Double> result = new LinkedHashMap<>();
        for (final Input in : smallestFirst(inputs))
        {
            if (in.scores != null)
            {
                in.scores.forEach((member, score) -> result.merge(member, weighted(score, in.weight),
                    (a, b) -> combine(aggregate, a, b)));
            }
        }
        return result;
    }

    private static Map<Key, Double> intersection(final List<Input> inputs, final Combine aggregate)
    {
        final List<Input> sorted = smallestFirst(inputs);
        final Map<Key, Double> result = new LinkedHashMap<>();
        if (sorted.getFirst().scores == null)
        {
            return result;
        }
        members:
        for (final Map.Entry<Key, Double> e : sorted.getFirst().scores.entrySet())
        {
            double score = weighted(e.getValue(), sorted.getFirst().weight);
            for (final Input in : sorted.subList(1, sorted.size()))
            {
                final Double other = in.scores == null ? null : in.scores.get(e.getKey());
                if (other == null)
                {
                    continue members;
                }
                score = combine(aggregate, score, weighted(other, in.weight));
            }
            result.put(e.getKey(), score);
        }
        return result;
    }

    private static Map<Key, Double> difference(final List<Input> inputs)
    {
        final Map<Key, Double> result = new LinkedHashMap<>();
        if (inputs.getFirst().scores != null)
        {
            result.putAll(inputs.getFirst().scores);
            for (final Input in : inputs.subList(1, inputs.size()))
            {
                if (in.scores != null)
                {
                    result.keySet().removeAll(in.scores.keySet());
                }
            }
        }
        return result;
    }

    /** The inputs by size, smallest first (a stable sort: equal sizes keep their order), as Redis takes them. */
    private static List<Input> smallestFirst(final List<Input> inputs)
    {
        return inputs.stream().sorted(Comparator.comparingInt(Input::size)).toList();
    }

    private static double weighted(final double score, final double weight)
    {
        final double w = score * weight;
        return Double.isNaN(w) ? 0 : w; // 0 * inf: Redis takes 0
    }

    private static double combine(final Combine aggregate, final double a, final double b)
    {
        return switch (aggregate)
        {
            case SUM ->
            {
                final double sum = a + b;
                yield Double.isNaN(sum) ? 0 : sum; // inf + -inf: Redis takes 0
            }
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }

    /** The result in a sorted set's order: by score, then by member. */
    private static ZSetValue.Members ordered(final Map<Key, Double> result, final long cut)
    {
        final ZSetValue.Members members = ZSetValue.empty(cut).members();
        result.forEach((member, score) -> members.put(member.bytes(), score));
        return members;
    }

    private Reply store(final Key destination, final Map<Key, Double> result)
    {
        final ZSetValue z = map.writableZSet(null);
        result.forEach((member, score) -> z.members().put(member.bytes(), score));
        map.storeOrRemove(destination, z); // replaces whatever it held, expiry too

        return new Reply.Int(result.size());
    }

    private static Reply reply(final Map<Key, Double> result, final boolean withScores)
    {
        final ZSetValue.Members members = ordered(result, 0);
        final List<Reply> replies = new ArrayList<>();
        for (int i = 0; i < members.size(); i++)
        {
            replies.add(new Reply.Bulk(members.at(i).member));
            if (withScores)
            {
                replies.add(new Reply.Double(members.at(i).score));
            }
        }
        return withScores ? new Reply.Scored(replies) : new Reply.Array(replies);
    }
}
