package io.weft.sst;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One writer thread per declared column, checked when {@code -Dio.weft.sst.checkWriters=true} (the test suites and
 * {@code weft chaos} set it). A push copies whatever my row holds when it is made (shm without zero copy, tcp,
 * rdma), so two threads that push one column can leave a stale value at a target: the one that read the row first
 * writes last. The protocol avoids that by giving each such column one writer; this check makes a second writer
 * fail loudly where it sets or pushes. Off, it costs one constant test.
 */
final class OneWriter
{
    static final boolean CHECKED = Boolean.getBoolean("io.weft.sst.checkWriters");

    private final List<Column> columns = new CopyOnWriteArrayList<>();
    private final Map<String, Thread> writers = new ConcurrentHashMap<>();

    void declare(final Column column)
    {
        columns.add(column);
    }

    /** Claims every declared column that overlaps {@code [start, end)} of my row for the calling thread. */
    void check(final long start, final long end)
    {
        final Thread me = Thread.currentThread();
        for (final Column c : columns)
        {
            if (c.offset() < end && start < c.offset() + c.length())
            {
                final Thread writer = writers.putIfAbsent(c.name(), me);
                if (writer != null && writer != me)
                {
                    throw new IllegalStateException("column " + c.name() + " is written by thread '" +
                        writer.getName() + "' and now by '" + me.getName() + "': it has one writer, so that no push " +
                        "carries a stale copy of the other's value");
                }
            }
        }
    }
}
