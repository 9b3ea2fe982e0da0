package io.weft.sst.shm;

import io.weft.config.Doorbell;
import io.weft.config.ProcessBarrier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link Doorbell} living in the header of a member's table file: a 32-bit sequence (the futex word) and a
 * sleeping flag. The owner's predicate thread sleeps on it; any process that pushes into the file rings it.
 * Dekker-style: the sleeper sets the flag (volatile) then re-checks for work; a ringer has made its data visible,
 * then reads the flag (volatile) and only then pays for the sequence bump and the wake system call. The owner's own
 * committing threads skip the fence ({@link #ringInProcess()}): the sleeper's {@link ProcessBarrier} orders them.
 */
final class FutexDoorbell implements Doorbell
{
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long FALLBACK_PARK_NANOS = 1_000_000L;

    private final MemorySegment header;
    private final long sequenceOffset;
    private final long sleepingOffset;
    private final long futexAddress;
    private final MemorySegment timespec;
    private boolean ordered = true; // the sleeper's own: whether its last announcement's barrier held

    FutexDoorbell(final MemorySegment header, final long sequenceOffset, final long sleepingOffset)
    {
        this.header = header;
        this.sequenceOffset = sequenceOffset;
        this.sleepingOffset = sleepingOffset;
        this.futexAddress = header.address() + sequenceOffset;
        this.timespec = Futex.newTimespec(Arena.ofAuto());
    }

    @Override
    public int prepareToSleep()
    {
        INT.setVolatile(header, sleepingOffset, 1);
        ordered = ProcessBarrier.run(); // for ringInProcess, which reads the flag without a fence
        return (int)INT.getVolatile(header, sequenceOffset);
    }

    @Override
    public void sleep(final int ticket, final long maxNanos)
    {
        if (Futex.AVAILABLE)
        {
            Futex.await(futexAddress, ticket, timespec, ProcessBarrier.sleepBound(ordered, maxNanos));
        }
        else if ((int)INT.getVolatile(header, sequenceOffset) == ticket)
        {
            LockSupport.parkNanos(Math.min(maxNanos, FALLBACK_PARK_NANOS));
        }
    }

    @Override
    public void awake()
    {
        INT.setRelease(header, sleepingOffset, 0);
    }

    /** From this member's own threads (a committer): the sleeper's process barrier stands in for the fence. */
    @Override
    public void ringInProcess()
    {
        ProcessBarrier.keepOrder();
        if (!ProcessBarrier.AVAILABLE)
        {
            ring();
        }
        else if ((int)INT.getAcquire(header, sleepingOffset) != 0)
        {
            wake();
        }
    }

    @Override
    public void ring()
    {
        // the pushed bytes (stores) must be globally visible before the flag is read (a load): StoreLoad needs a
        // full fence
        VarHandle.fullFence();
        if ((int)INT.getVolatile(header, sleepingOffset) != 0)
        {
            wake();
        }
    }

    private void wake()
    {
        INT.getAndAdd(header, sequenceOffset, 1);
        if (Futex.AVAILABLE)
        {
            Futex.wakeAll(futexAddress);
        }
    }
}
