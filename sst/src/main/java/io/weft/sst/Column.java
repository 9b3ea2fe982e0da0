package io.weft.sst;

/**
 * One declared column: {@code count} elements of {@code elementSize} bytes starting {@code offset} bytes into the row.
 * Counters and booleans have an element size of 8; a byte region is one element of its (8-rounded) length.
 */
public record Column(String name, ColumnKind kind, int offset, int count, int elementSize)
{
    /** Bytes the column occupies in a row. */
    public int length()
    {
        return count * elementSize;
    }

    /** Offset of element {@code index} within the row. */
    public int offsetOf(final int index)
    {
        if (index < 0 || index >= count)
        {
            throw new IndexOutOfBoundsException("column " + name + " has " + count + " elements, index " + index);
        }
        return offset + index * elementSize;
    }
}
