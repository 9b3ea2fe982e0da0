package io.weft.sst.tcp;

import io.weft.sst.RowCopy;
import io.weft.sst.TransportException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One tcp connection to a peer. Pushers (any thread) append frames to the send buffer and write as much as the
 * socket takes at once; the rest is flushed by the transport's selector thread. The selector thread alone reads.
 */
final class TcpConnection
{
    enum State
    {
        CONNECTING, AWAIT_CHALLENGE, AWAIT_HELLO, AWAIT_REPLY, ESTABLISHED, CLOSED;

        /** Handshake messages are read in this state. */
        boolean handshaking()
        {
            return this == AWAIT_CHALLENGE || this == AWAIT_HELLO || this == AWAIT_REPLY;
        }
    }

    final SocketChannel channel;
    final SocketAddress remote;
    final boolean outbound;
    final long handshakeDeadline;
    final ByteBuffer recv;
    final MemorySegment recvSegment;
    volatile State state;
    volatile int peerRank = -1;
    SelectionKey key;
    /** This end's handshake nonce: the acceptor's challenge, or the dialler's hello nonce. Selector thread only. */
    byte[] nonce;
    /** The dialler's copy of the acceptor's challenge nonce (half of the pair's beat token). Selector thread only. */
    byte[] challenge;

    /** Bytes of the send buffer that only pushes which never wait may use. */
    static final int HEADROOM = 4096;

    /**
     * The send and receive buffers, freed when the connection closes: every access to the send buffer is under
     * {@link #lock} after a state check, and only the selector thread, which closes, touches the receive buffer.
     */
    private final Arena arena = Arena.ofShared();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    private final MemorySegment sendSegment;
    private final ByteBuffer sendView;
    private final ArrayDeque<Tracked> tracked = new ArrayDeque<>();
    private int head;
    private int tail;
    private long nextTrackedId;
    private long ackOwed = -1;
    private volatile String closeReason;

    TcpConnection(final SocketChannel channel, final SocketAddress remote, final boolean outbound,
        final int sendBufferBytes, final int recvBufferBytes, final long handshakeDeadline)
    {
        this.channel = channel;
        this.remote = remote;
        this.outbound = outbound;
        this.handshakeDeadline = handshakeDeadline;
        this.state = outbound ? State.CONNECTING : State.AWAIT_HELLO;
        // 64-byte aligned native buffers: frames start at multiples of 8, so every 8-byte copy is aligned
        this.sendSegment = arena.allocate(sendBufferBytes, 64);
        this.sendView = sendSegment.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        this.recvSegment = arena.allocate(recvBufferBytes, 64);
        this.recv = recvSegment.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Appends a push frame copied from {@code table}; {@link #flushPending()} writes it. While the send buffer is
     * full (back-pressure from a slow peer) it waits up to {@code waitNanos}: a peer that takes nothing for that long
     * is frozen or overloaded, and the connection is closed with that reason. Returns {@link Append#CLOSED} if the
     * connection is (then) closed, {@link Append#SKIPPED} if {@code waitNanos} is 0 and there is no room. Pushes that
     * may wait leave {@link #HEADROOM} bytes free for those that may not (heartbeats), so that a saturated but
     * draining link still carries them. {@code whileFull}, when not null, runs (without the lock) instead of a
     * 1 ms wait for room: the selector thread, pushing from a hosted pass, reads meanwhile, or a peer that waits
     * for it to read would never drain.
     */
    Append push(final MemorySegment table, final long tableOffset, final int rowOffset, final int length,
        final CompletableFuture<Void> completion, final long waitNanos, final Runnable whileFull)
    {
        final byte type = completion == null ? Frame.PUSH : Frame.PUSH_TRACKED;
        final int need = Frame.headerLength(type) + length;
        lock.lock();
        try
        {
            final Append room = reserve(waitNanos > 0 ? need + HEADROOM : need, waitNanos, whileFull);
            if (room != Append.APPENDED)
            {
                return room;
            }
            sendView.limit(sendView.capacity()).position(tail);
            sendView.put(type).put((byte)0).putShort((short)0).putInt(length).putInt(rowOffset).putInt(0);
            if (completion != null)
            {
                final long id = ++nextTrackedId;
                sendView.putLong(id);
                tracked.add(new Tracked(id, completion));
            }
            RowCopy.copy(table, tableOffset, sendSegment, sendView.position(), length);
            tail = sendView.position() + length;
            return Append.APPENDED;
        }
        catch (final IOException ex)
        {
            closeReason = "write failed: " + ex.getMessage();
            return Append.CLOSED;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Writes what the socket takes of everything appended; false if the connection is closed. */
    boolean flushPending()
    {
        lock.lock();
        try
        {
            if (state == State.CLOSED)
            {
                return false;
            }
            flushLocked();
            return true;
        }
        catch (final IOException ex)
        {
            closeReason = "write failed: " + ex.getMessage();
            return false;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Writes a handshake message ({@link Hello#SIZE} bytes) ahead of any frame. */
    void sendHandshake(final Hello hello) throws IOException
    {
        lock.lock();
        try
        {
            sendView.limit(sendView.capacity()).position(tail);
            hello.encode(sendView);
            tail = sendView.position();
            flushLocked();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Selector thread: records that tracked pushes up to {@code id} were applied; the ACK goes out when it fits. */
    void owesAck(final long id) throws IOException
    {
        lock.lock();
        try
        {
            ackOwed = Math.max(ackOwed, id);
            writeOwedAck();
            flushLocked();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Selector thread: the peer applied our tracked pushes up to {@code id}. */
    void acked(final long id)
    {
        lock.lock();
        try
        {
            while (!tracked.isEmpty() && tracked.peek().id <= id)
            {
                tracked.poll().completion.complete(null);
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Selector thread, on OP_WRITE: writes what is pending. */
    void flush() throws IOException
    {
        lock.lock();
        try
        {
            writeOwedAck();
            flushLocked();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Selector thread only (it alone reads the receive buffer). */
    void close(final String reason)
    {
        lock.lock();
        try
        {
            if (state == State.CLOSED)
            {
                return;
            }
            state = State.CLOSED;
            if (closeReason == null)
            {
                closeReason = reason;
            }
            final TransportException failure = new TransportException("connection to " + remote + " closed: " + reason);
            tracked.forEach(t -> t.completion.completeExceptionally(failure));
            tracked.clear();
            drained.signalAll();
            arena.close(); // under the lock, state CLOSED: no pusher is inside or will touch the buffers again
        }
        finally
        {
            lock.unlock();
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignored)
        {
            // closing anyway
        }
    }

    String closeReason()
    {
        return closeReason;
    }

    private Append reserve(final int need, final long waitNanos, final Runnable whileFull) throws IOException
    {
        if (need > sendSegment.byteSize())
        {
            throw new TransportException("a push of " + need + " bytes exceeds weft.transport.tcp.send-buffer (" +
                sendSegment.byteSize() + " bytes)");
        }
        long deadline = 0;
        while (state != State.CLOSED)
        {
            if (sendSegment.byteSize() - tail >= need)
            {
                return Append.APPENDED;
            }
            // a multiple of 8: frames stay 8-byte aligned (a partial write may end anywhere)
            final int shift = head & ~7;
            if (shift > 0)
            {
                MemorySegment.copy(sendSegment, shift, sendSegment, 0, tail - shift);
                tail -= shift;
                head -= shift;
                deadline = 0; // the peer took data: the wait for a silent peer starts again
                continue;
            }
            flushLocked();
            if (sendSegment.byteSize() - tail < need && head < 8)
            {
                if (waitNanos <= 0)
                {
                    return Append.SKIPPED;
                }
                final long now = System.nanoTime();
                deadline = deadline == 0 ? now + waitNanos : deadline;
                if (now - deadline >= 0)
                {
                    closeReason = "the peer took no data for " + java.time.Duration.ofNanos(waitNanos) + " with " +
                        (tail - head) + " bytes queued (frozen or overloaded)";
                    return Append.CLOSED; // the caller reports the failure; the selector thread closes
                }
                if (whileFull != null)
                {
                    lock.unlock(); // the state and the buffer may change meanwhile: the loop looks again
                    try
                    {
                        whileFull.run();
                    }
                    finally
                    {
                        lock.lock();
                    }
                    continue;
                }
                try
                {
                    drained.await(1, TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return Append.CLOSED;
                }
            }
        }
        return Append.CLOSED;
    }

    private void writeOwedAck()
    {
        final int need = Frame.HEADER + Frame.ID;
        if (ackOwed < 0 || sendSegment.byteSize() - tail < need)
        {
            return;
        }
        sendView.limit(sendView.capacity()).position(tail);
        sendView.put(Frame.ACK).put((byte)0).putShort((short)0).putInt(0).putInt(0).putInt(0).putLong(ackOwed);
        tail = sendView.position();
        ackOwed = -1;
    }

    private void flushLocked() throws IOException
    {
        if (head < tail && state != State.CLOSED)
        {
            sendView.limit(tail).position(head);
            channel.write(sendView);
            head = sendView.position();
        }
        if (head == tail)
        {
            head = 0;
            tail = 0;
            drained.signalAll();
        }
        final SelectionKey k = key;
        if (k != null && k.isValid())
        {
            final int ops = head < tail || ackOwed >= 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE :
                SelectionKey.OP_READ;
            if (k.interestOps() != ops)
            {
                k.interestOps(ops);
                k.selector().wakeup();
            }
        }
    }

    /** Outcome of appending a push. */
    enum Append
    {
        APPENDED, SKIPPED, CLOSED
    }

    private record Tracked(long id, CompletableFuture<Void> completion)
    {
    }
}
