package io.weft.sst;

/** The transport could not be opened or used: the message says what was looked for and what was found. */
public final class TransportException extends RuntimeException
{
    /** What failed, with what was looked for and found. */
    public TransportException(final String message)
    {
        super(message);
    }

    /** What failed, and the exception that made it fail. */
    public TransportException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
