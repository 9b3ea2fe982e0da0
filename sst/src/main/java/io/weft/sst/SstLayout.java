package io.weft.sst;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The row layout of a shared state table, built from declared columns. Every row has this layout; every element is
 * 8-byte aligned and the row size is a multiple of 4 KiB: rows never share a cache line, and the shm transport can
 * map each row from its owner's file (zero copy), which needs whole pages.
 * The {@link #checksum()} identifies the layout in handshakes: members with different layouts refuse each other.
 *
 * <pre>{@code
 * SstLayout layout = SstLayout.builder()
 *     .counter("heartbeat")
 *     .counters("received", 3)
 *     .bool("wedged")
 *     .bytes("slots", 100 * 1024)
 *     .build();
 * Column received = layout.column("received");
 * }</pre>
 */
public final class SstLayout
{
    /** Every column starts at a multiple of this many bytes (its words are never torn). */
    public static final int ALIGNMENT = 8;
    /** Rows are padded to a multiple of this (a page), so that rows never share a page. */
    public static final int ROW_ALIGNMENT = 4096;
    /** Rows are bounded so that a row offset and length always fit an int (tcp frames, rdma work requests). */
    public static final int MAX_ROW_SIZE = 1 << 30;

    private final Map<String, Column> columns;
    private final int rowSize;
    private final long checksum;

    private SstLayout(final Map<String, Column> columns, final int rowSize)
    {
        this.columns = columns;
        this.rowSize = rowSize;
        this.checksum = fnv1a(describe());
    }

    /** A builder of a layout, columns in the order declared. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** The column named {@code name}; an unknown name is refused with the declared ones. */
    public Column column(final String name)
    {
        final Column c = columns.get(name);
        if (c == null)
        {
            throw new IllegalArgumentException("no column named " + name + " in layout " + columns.keySet());
        }
        return c;
    }

    /** Every column, in row order. */
    public List<Column> columns()
    {
        return List.copyOf(columns.values());
    }

    /** Bytes per row, padded to {@link #ROW_ALIGNMENT}. */
    public int rowSize()
    {
        return rowSize;
    }

    /** A hash of {@link #describe()}, compared in handshakes. */
    public long checksum()
    {
        return checksum;
    }

    /** A canonical text of the layout; its hash is the checksum. */
    public String describe()
    {
        final StringBuilder sb = new StringBuilder("row=").append(rowSize);
        for (final Column c : columns.values())
        {
            sb.append(';').append(c.name()).append(':').append(c.kind()).append(':').append(c.offset())
                .append(':').append(c.count()).append(':').append(c.elementSize());
        }
        return sb.toString();
    }

    @Override
    public String toString()
    {
        return "SstLayout{" + describe() + ", checksum=" + Long.toHexString(checksum) + "}";
    }

    private static long fnv1a(final String s)
    {
        long h = 0xcbf29ce484222325L;
        for (final byte b : s.getBytes(StandardCharsets.UTF_8))
        {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** Declares columns in row order. */
    public static final class Builder
    {
        private final Map<String, Column> columns = new LinkedHashMap<>();
        private long offset;

        private Builder()
        {
        }

        /** A monotonic 64-bit counter. */
        public Builder counter(final String name)
        {
            return add(name, ColumnKind.COUNTER, 1, 8);
        }

        /** An array of {@code count} counters. */
        public Builder counters(final String name, final int count)
        {
            return add(name, ColumnKind.COUNTER, count, 8);
        }

        /** A flag (one 64-bit word, 0 or 1). */
        public Builder bool(final String name)
        {
            return add(name, ColumnKind.BOOL, 1, 8);
        }

        /** An array of {@code count} flags. */
        public Builder bools(final String name, final int count)
        {
            return add(name, ColumnKind.BOOL, count, 8);
        }

        /** A byte region of {@code length} bytes, rounded up to a multiple of 8. */
        public Builder bytes(final String name, final int length)
        {
            if (length <= 0)
            {
                throw new IllegalArgumentException("byte column " + name + ": length must be positive, was " + length);
            }
            return add(name, ColumnKind.BYTES, 1, align(length, ALIGNMENT));
        }

        private Builder add(final String name, final ColumnKind kind, final int count, final int elementSize)
        {
            if (name == null || name.isBlank() || name.contains(";") || name.contains(":"))
            {
                throw new IllegalArgumentException("column name must be non-blank without ';' or ':', was " + name);
            }
            if (count <= 0)
            {
                throw new IllegalArgumentException("column " + name + ": count must be positive, was " + count);
            }
            if (columns.containsKey(name))
            {
                throw new IllegalArgumentException("column " + name + " declared twice");
            }
            final long length = (long)count * elementSize;
            if (offset + length > MAX_ROW_SIZE)
            {
                throw new IllegalArgumentException("column " + name + " makes the row larger than " + MAX_ROW_SIZE);
            }
            columns.put(name, new Column(name, kind, (int)offset, count, elementSize));
            offset += length;
            return this;
        }

        /** The layout; at least one column. */
        public SstLayout build()
        {
            if (columns.isEmpty())
            {
                throw new IllegalStateException("a layout needs at least one column");
            }
            return new SstLayout(new LinkedHashMap<>(columns), align((int)offset, ROW_ALIGNMENT));
        }

        private static int align(final int value, final int alignment)
        {
            return (value + alignment - 1) & -alignment;
        }
    }

    List<Column> counterColumns()
    {
        final List<Column> result = new ArrayList<>();
        for (final Column c : columns.values())
        {
            if (c.kind() == ColumnKind.COUNTER)
            {
                result.add(c);
            }
        }
        return result;
    }
}
