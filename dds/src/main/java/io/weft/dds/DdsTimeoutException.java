package io.weft.dds;

/** A write found no free slot, or a durability wait did not complete, within its time limit. */
public final class DdsTimeoutException extends RuntimeException
{
    /** The timeout, with {@code message} saying what was waited for and how long. */
    public DdsTimeoutException(final String message)
    {
        super(message);
    }
}
