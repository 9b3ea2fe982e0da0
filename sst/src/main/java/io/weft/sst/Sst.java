package io.weft.sst;

import io.weft.config.Doorbell;
import io.weft.config.IdleConfig;
import io.weft.config.PassHost;
import io.weft.config.WeftConfig;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * The shared state table (protocol section 2): one row per member, every member holding a full local copy, only the
 * owner writing its row and pushing byte ranges of it to other members.
 *
 * <p>Memory ordering: readers of other rows use {@link #counter(int, Column)} (an acquire load), so a reader that
 * sees a guard's new value also sees everything pushed before it; the owner writes counters with release stores.
 * Pushes follow the contract stated on {@link SstTransport}: push payload first, then the guard, in two pushes.
 *
 * <pre>{@code
 * SstLayout layout = SstLayout.builder().counter("count").bytes("payload", 256).build();
 * try (Sst sst = Sst.open(config, layout)) {
 *     Column count = layout.column("count");
 *     sst.setCounter(count, 42);
 *     sst.push(count, sst.others());
 *     long seen = sst.counter(1, count);  // member 1's value as last pushed to me
 * }
 * }</pre>
 */
public final class Sst implements AutoCloseable
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final SstLayout layout;
    private final int rows;
    private final int myRank;
    private final int rowSize;
    private final long myRowOffset;
    private final MemorySegment table;
    private final SstTransport transport;
    private final FailureDispatcher failures;
    private final int[] others;
    private final OneWriter oneWriter = new OneWriter();
    private final LongAdder writes = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    private Sst(final SstLayout layout, final int rows, final int myRank, final SstTransport transport,
        final FailureDispatcher failures)
    {
        this.layout = layout;
        this.rows = rows;
        this.myRank = myRank;
        this.rowSize = layout.rowSize();
        this.myRowOffset = (long)myRank * rowSize;
        this.table = transport.table();
        this.transport = transport;
        this.failures = failures;
        this.others = new int[rows - 1];
        for (int r = 0, i = 0; r < rows; r++)
        {
            if (r != myRank)
            {
                others[i++] = r;
            }
        }
    }

    /**
     * Opens the table over the configured transport and waits, up to {@code weft.transport.connect-timeout}, until
     * every member of the group is reachable.
     */
    public static Sst open(final WeftConfig config, final SstLayout layout)
    {
        return open(config, layout, false, TransportContext.NONE_GONE);
    }

    /**
     * Like {@link #open(WeftConfig, SstLayout)}, for a view after the first: a member that has not connected by the
     * connect timeout, or earlier when {@code gone} says it is gone, is reported failed (and frozen) instead of
     * failing the open. {@code gone} is asked per rank while the open waits for it (see {@link TransportContext}).
     */
    public static Sst openTolerating(final WeftConfig config, final SstLayout layout, final IntPredicate gone)
    {
        return open(config, layout, true, Objects.requireNonNull(gone, "gone"));
    }

    private static Sst open(final WeftConfig config, final SstLayout layout, final boolean tolerateMissing,
        final IntPredicate gone)
    {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(layout, "layout");
        final FailureDispatcher failures = new FailureDispatcher();
        final SstTransport transport = Transports.open(new TransportContext(config, layout, failures,
            failures::threadFailed, tolerateMissing, gone));
        failures.attach(transport);
        return new Sst(layout, config.group().size(), config.rank(), transport, failures);
    }

    /** Fills a fresh table: counters -1, booleans false, byte regions zero. */
    public static void initialize(final MemorySegment table, final SstLayout layout, final int rows)
    {
        table.fill((byte)0);
        for (int r = 0; r < rows; r++)
        {
            final long base = (long)r * layout.rowSize();
            for (final Column c : layout.counterColumns())
            {
                for (int i = 0; i < c.count(); i++)
                {
                    table.set(ValueLayout.JAVA_LONG, base + c.offsetOf(i), -1L);
                }
            }
        }
    }

    /** The columns of every row. */
    public SstLayout layout()
    {
        return layout;
    }

    /** How many rows (members) the table has. */
    public int rows()
    {
        return rows;
    }

    /** The row this member owns and writes. */
    public int myRank()
    {
        return myRank;
    }

    /** Ranks of every member but me, in rank order; do not modify. */
    public int[] others()
    {
        return others;
    }

    /** The whole local table, for flyweights that read byte regions in place. */
    public MemorySegment segment()
    {
        return table;
    }

    /** Absolute offset of a column element in the table segment. */
    public long offset(final int row, final Column column, final int index)
    {
        checkRow(row);
        return (long)row * rowSize + column.offsetOf(index);
    }

    // ---- reads (any row): acquire loads ----------------------------------------------------------------------

    /** Element 0 of counter {@code column} in {@code row} (acquire load). */
    public long counter(final int row, final Column column)
    {
        return counter(row, column, 0);
    }

    /** Element {@code index} of counter {@code column} in {@code row} (acquire load). */
    public long counter(final int row, final Column column, final int index)
    {
        return (long)LONG.getAcquire(table, offset(row, column, index));
    }

    /** Element 0 of flag {@code column} in {@code row} (acquire load). */
    public boolean bool(final int row, final Column column)
    {
        return bool(row, column, 0);
    }

    /** Element {@code index} of flag {@code column} in {@code row} (acquire load). */
    public boolean bool(final int row, final Column column, final int index)
    {
        return (long)LONG.getAcquire(table, offset(row, column, index)) != 0;
    }

    // ---- writes (my row only): release stores ----------------------------------------------------------------

    /** Sets element 0 of counter {@code column} in my row (release store); a push sends it. */
    public void setCounter(final Column column, final long value)
    {
        setCounter(column, 0, value);
    }

    /** Sets element {@code index} of counter {@code column} in my row (release store); a push sends it. */
    public void setCounter(final Column column, final int index, final long value)
    {
        checkWriter(column);
        LONG.setRelease(table, myRowOffset + column.offsetOf(index), value);
    }

    /** Sets element 0 of flag {@code column} in my row (release store); a push sends it. */
    public void setBool(final Column column, final boolean value)
    {
        setBool(column, 0, value);
    }

    /** Sets element {@code index} of flag {@code column} in my row (release store); a push sends it. */
    public void setBool(final Column column, final int index, final boolean value)
    {
        checkWriter(column);
        LONG.setRelease(table, myRowOffset + column.offsetOf(index), value ? 1L : 0L);
    }

    private void checkWriter(final Column column)
    {
        if (OneWriter.CHECKED)
        {
            oneWriter.check(column.offset(), column.offset() + column.length());
        }
    }

    /** My row's byte region of a column, for writing payloads in place; push it before its guard. */
    public MemorySegment myBytes(final Column column)
    {
        return table.asSlice(myRowOffset + column.offset(), column.length());
    }

    // ---- pushes -----------------------------------------------------------------------------------------------

    /**
     * Declares that one thread sets and pushes {@code column}: with {@code -Dio.weft.sst.checkWriters=true} a second
     * thread that sets it or pushes a range over it fails (see {@link OneWriter}).
     */
    public void oneWriter(final Column column)
    {
        oneWriter.declare(column);
    }

    /** Pushes a whole column of my row. */
    public void push(final Column column, final int[] targets)
    {
        push(column.offset(), column.length(), targets);
    }

    /** Pushes one element of a column of my row. */
    public void push(final Column column, final int index, final int[] targets)
    {
        push(column.offsetOf(index), column.elementSize(), targets);
    }

    /**
     * Pushes {@code [rowOffset, rowOffset + length)} of my row to the targets (ranks) now. The range is widened to
     * 8-byte boundaries; it must lie inside the row.
     */
    public void push(final long rowOffset, final long length, final int[] targets)
    {
        post(rowOffset, length, targets);
        transport.flush();
    }

    /**
     * Pushes a column whose next push supersedes this one (a heartbeat): never waits for a congested target, which
     * is skipped instead, so that a frozen peer cannot hold up the caller.
     */
    public void offer(final Column column, final int[] targets)
    {
        final long range = alignedRange(column.offset(), column.length(), targets);
        transport.offer((int)(range >>> 32), (int)range, targets);
    }

    /**
     * Posts a push that goes out at the next {@link #flush()}: a trigger posts all its pushes, then flushes once,
     * so a transport can send them in one system call (tcp) or one doorbell (shm, rdma). Order is kept.
     */
    public void post(final long rowOffset, final long length, final int[] targets)
    {
        final long range = alignedRange(rowOffset, length, targets);
        transport.post((int)(range >>> 32), (int)range, targets);
    }

    /**
     * Whether other members read my row in place (shm's zero copy): my stores are seen without a copy, and a push of
     * a monotone value from any thread cannot overtake a later one (see {@link SstTransport#readsInPlace}).
     */
    public boolean readsInPlace()
    {
        return transport.readsInPlace();
    }

    /** See {@link SstTransport#copiesWhenPosted()}. */
    public boolean copiesWhenPosted()
    {
        return transport.copiesWhenPosted();
    }

    /** Sends every posted push. */
    public void flush()
    {
        transport.flush();
    }

    /** One-sided writes posted so far: one per target of every push (what an RDMA NIC would be asked to do). */
    public long writesPosted()
    {
        return writes.sum();
    }

    /** Bytes written to other members so far. */
    public long bytesPushed()
    {
        return bytes.sum();
    }

    /** Pushes a range of my row and completes when every live target applied it (or fails if one fails first). */
    public CompletableFuture<Void> pushTracked(final long rowOffset, final long length, final int[] targets)
    {
        final long range = alignedRange(rowOffset, length, targets);
        return transport.pushTracked((int)(range >>> 32), (int)range, targets);
    }

    /**
     * Checks a push and counts it: the range widened to 8-byte boundaries, packed as {@code start << 32 | length}
     * (both fit an int: rows are at most {@link SstLayout#MAX_ROW_SIZE}).
     */
    private long alignedRange(final long rowOffset, final long length, final int[] targets)
    {
        final long start = rowOffset & -8L;
        final long end = (rowOffset + length + 7) & -8L;
        if (OneWriter.CHECKED)
        {
            oneWriter.check(start, end);
        }
        if (rowOffset < 0 || length < 0 || end > rowSize)
        {
            throw new IndexOutOfBoundsException("push of [" + rowOffset + ", " + (rowOffset + length) +
                ") is outside the row of " + rowSize + " bytes");
        }
        checkTargets(targets);
        writes.add(targets.length);
        bytes.add((end - start) * targets.length);
        return start << 32 | (end - start);
    }

    // ---- failures ---------------------------------------------------------------------------------------------

    /** Stops pushing to a member and stops applying its pushes (protocol: freeze a suspected member's row). */
    public void freeze(final int rank)
    {
        freeze(rank, "frozen by this member");
    }

    /**
     * Which ranks leave this table on purpose (a layer above knows: a leave or a finish announced, a view change
     * completed, after which each member closes its table): a loss of one is frozen and reported as any other, but
     * logged as a departure, not as a failure. Default: none.
     */
    public void departing(final IntPredicate departing)
    {
        failures.departing(departing);
    }

    /** Freezes a member's row and tells the failure listeners why (for example a silent heartbeat). */
    public void freeze(final int rank, final String reason)
    {
        checkRow(rank);
        if (rank == myRank)
        {
            throw new IllegalArgumentException("cannot freeze my own row " + rank);
        }
        failures.onMemberFailure(rank, reason);
    }

    /** A sign of life to each target that data queued for it cannot delay (see {@link SstTransport#beat}). */
    public void beat(final int[] targets)
    {
        transport.beat(targets);
    }

    /**
     * When bytes or a beat from {@code rank} last arrived, where heartbeats can queue behind data (see the transport).
     */
    public long lastHeardNanos(final int rank)
    {
        return transport.lastHeardNanos(rank);
    }

    /**
     * Whether the transport reported {@code rank} failed, or the table was frozen for it (its pushes are no longer sent
     * or applied).
     */
    public boolean isFailedOrFrozen(final int rank)
    {
        return failures.hasFailed(rank);
    }

    /**
     * Where this table reports that a thread of its transport ended by a throwable it did not expect: the table then
     * neither sends nor receives. Called once, on that thread, or at once here if it already happened; until set,
     * only the transport's log tells it.
     */
    public void errorHandler(final Consumer<Throwable> handler)
    {
        failures.errorHandler(Objects.requireNonNull(handler, "handler"));
    }

    /** Adds a listener; it is also told at once about members that already failed. */
    public void addFailureListener(final FailureListener listener)
    {
        failures.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Where the predicate thread sleeps; pushes arriving from other members ring it. */
    public Doorbell doorbell()
    {
        return transport.doorbell();
    }

    /**
     * The thread that runs this table's predicate passes in place of a predicate thread of their own (tcp with
     * {@code threading = merged}: the selector thread), or null: the predicate thread sleeps on {@link #doorbell()}.
     */
    public PassHost passHost()
    {
        return transport.passHost();
    }

    @Override
    public void close()
    {
        transport.close();
    }

    private void checkRow(final int row)
    {
        if (row < 0 || row >= rows)
        {
            throw new IndexOutOfBoundsException("row " + row + " outside a table of " + rows + " rows");
        }
    }

    private void checkTargets(final int[] targets)
    {
        for (final int t : targets)
        {
            if (t < 0 || t >= rows || t == myRank)
            {
                throw new IllegalArgumentException("push target " + t + " is not another member's rank (rows " +
                    rows + ", mine " + myRank + ")");
            }
        }
    }
}
