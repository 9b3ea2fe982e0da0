package io.weft.examples.kv;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a local read see the store between two writes, never during one (a sequence lock with one writer, the
 * delivery thread). The store changes in place, key by key, while connection threads read it: without this, an MGET
 * of two keys that one MSET or EXEC sets together read one of them before that write and the other after it (137 of
 * 290,000 MGETs at two members while a third wrote, in a manual run), and a GET could see one key of a transaction
 * half applied. The writer makes the sequence odd before it changes anything and even again once it is done; a read
 * that starts and ends on the same even value overlapped no write, and one that did is read again, a few times at
 * most: a reader does not wait for writes that keep coming, it sends the read through the group instead.
 */
final class WriteSequence
{
    /** Reads of the store tried before the read goes through the group: writes overlapped each of them. */
    static final int READ_ATTEMPTS = 8;
    /** Odd while a write applies; its one writer reads it plainly. */
    private final AtomicLong sequence = new AtomicLong();
    /** Local reads that went through the group because writes overlapped each of their attempts (INFO). */
    private final AtomicLong ordered = new AtomicLong();

    /** The writing thread, before a write changes the store. */
    void begin()
    {
        sequence.setOpaque(sequence.getPlain() + 1);
        // no change of the write may become visible before the odd value: a reader that sees the change then sees
        // the odd value (or a later one) when it checks again
        VarHandle.storeStoreFence();
    }

    /** The writing thread, after the write: release, so a reader that sees this value sees every change before it. */
    void end()
    {
        sequence.setRelease(sequence.getPlain() + 1);
    }

    /** A reader, before it reads: acquire, so what it reads next is at least as new as the writes this ended. */
    long beforeRead()
    {
        return sequence.getAcquire();
    }

    /** A reader, after it read, with {@link #beforeRead}'s value: whether no write ran meanwhile. */
    boolean unchanged(final long before)
    {
        // the reads of the store complete before the sequence is read again, as StampedLock.validate orders them
        VarHandle.loadLoadFence();
        return (before & 1) == 0 && sequence.getOpaque() == before;
    }

    /** A read gave up on the store and goes through the group. */
    void readOrdered()
    {
        ordered.incrementAndGet();
    }

    /** Local reads sent through the group since the start. */
    long ordered()
    {
        return ordered.get();
    }
}
