package io.weft.sst;

/** What a column of the shared state table holds. Every element is 8-byte aligned. */
public enum ColumnKind
{
    /** Monotone 8-byte counters; initial value -1 ("nothing yet"). */
    COUNTER,
    /** Booleans that only go false to true within a view, stored as 8-byte words (0 or 1); initially false. */
    BOOL,
    /** A raw byte region (for example SMC slots), zero-filled, its length rounded up to 8 bytes. */
    BYTES
}
