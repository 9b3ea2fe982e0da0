package io.weft.examples.kv;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Where SRANDMEMBER and ZRANDMEMBER draw their members: this thread's random numbers, but inside a script the
 * script's own generator (math.random's, seeded alike at every member), so that a script that writes what it drew
 * (a random pop: SRANDMEMBER, then SREM of it) changes every member's copy alike. Outside a script a draw is a read's,
 * answered at one member only.
 */
final class Draws
{
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
