package io.weft.dds;

/** A ring of samples as {@link LogWriter} keeps one (entry {@code n} at {@code n % capacity}), for tests of runs. */
final class RunRing
{
    private final int[] publishers;
    private final long[] nanos;
    private final byte[][] payloads;
    private final int[] lengths;

    RunRing(final int capacity)
    {
        publishers = new int[capacity];
        nanos = new long[capacity];
        payloads = new byte[capacity][];
        lengths = new int[capacity];
    }

    int capacity()
    {
        return publishers.length;
    }

    /** Entry {@code n}: the first {@code length} bytes of {@code payload}. */
    void put(final long n, final int publisher, final long sourceNanos, final byte[] payload, final int length)
    {
        final int i = (int)(n % publishers.length);
        publishers[i] = publisher;
        nanos[i] = sourceNanos;
        payloads[i] = payload;
        lengths[i] = length;
    }

    /** Appends entries {@code from} to {@code to} as runs; returns the log's new count. */
    long appendTo(final SampleLog log, final long from, final long to)
    {
        return log.appendRun(publishers, nanos, payloads, lengths, from, to);
    }
}
