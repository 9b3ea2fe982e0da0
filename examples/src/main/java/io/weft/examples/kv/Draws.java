package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Where SRANDMEMBER, HRANDFIELD and ZRANDMEMBER draw their members: this thread's random numbers, but inside a script
 * the script's own generator (math.random's, seeded alike at every member), so that a script that writes what it drew
 * (a random pop: SRANDMEMBER, then SREM of it) changes every member's copy alike. Outside a script a draw is a read's,
 * answered at one member only.
 */
final class Draws
{
    /** The most a negative count draws in one call (each may repeat: a reply would be unbounded). */
    static final long MOST_PICKED = 1_000_000;
    private static final ThreadLocal<RandomGenerator> SCRIPT = new ThreadLocal<>();

    private Draws()
    {
    }

    /** The generator to draw from on this thread now. */
    static RandomGenerator current()
    {
        final RandomGenerator script = SCRIPT.get();
        return script != null ? script : ThreadLocalRandom.current();
    }

    /**
     * SRANDMEMBER's and HRANDFIELD's pick of {@code all}, which it reorders: with a positive count that many distinct
     * ones at most (the first of a partial shuffle), with a negative one that many, each drawn anew; an error past
     * {@link #MOST_PICKED}.
     */
    static <T> List<T> pick(final List<T> all, final long count)
    {
        if (count < -MOST_PICKED)
        {
            throw new KvStore.SyntaxError("ERR value is out of range: at most " + MOST_PICKED + " a call here");
        }
        final RandomGenerator random = current();
        final List<T> picked = new ArrayList<>();
        for (int i = 0; i < Math.abs(count) && (count < 0 ? !all.isEmpty() : i < all.size()); i++)
        {
            if (count > 0)
            {
                Collections.swap(all, i, i + random.nextInt(all.size() - i));
            }
            picked.add(all.get(count > 0 ? i : random.nextInt(all.size())));
        }
        return picked;
    }

    /** This thread runs a script that draws from {@code random} until {@link #scriptEnded()}. */
    static void scriptStarted(final RandomGenerator random)
    {
        SCRIPT.set(random);
    }

    /** This thread's script ended: draws are its own again. */
    static void scriptEnded()
    {
        SCRIPT.remove();
    }
}
