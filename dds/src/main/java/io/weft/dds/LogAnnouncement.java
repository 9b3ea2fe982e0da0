package io.weft.dds;

/**
 * What a member of view 0 publishes in a logged topic's {@code persisted} column while the members compare their logs
 * ({@link ViewZeroLogs}): first the log's size, then, once every size is known, the CRC-32C of its last entry. Both
 * are negative, which the durability frontier takes as no count; a last-entry mark lies below every size mark.
 */
final class LogAnnouncement
{
    private static final long LAST_BASE = Long.MIN_VALUE;
    private static final long LAST_END = LAST_BASE + (1L << 32);

    private LogAnnouncement()
    {
    }

    static long size(final long entries)
    {
        return -(entries + 2);
    }

    static long lastEntry(final int crc)
    {
        return LAST_BASE + Integer.toUnsignedLong(crc);
    }

    static boolean isSize(final long value)
    {
        return value <= -2 && value >= LAST_END;
    }

    static boolean isLastEntry(final long value)
    {
        return value < LAST_END;
    }

    static long entries(final long sizeMark)
    {
        return -(sizeMark + 2);
    }

    static int crc(final long lastEntryMark)
    {
        return (int)(lastEntryMark - LAST_BASE);
    }
}
