package io.weft.config;

/**
 * A configuration value that cannot be used. The message always names the key, the offending value and what
 * is allowed, so that a member fails at start with something a person can act on.
 */
public final class WeftConfigException extends RuntimeException
{
    private final String key;

    /** {@code key = value} cannot be used; {@code allowed} says what can. */
    public WeftConfigException(final String key, final Object value, final String allowed)
    {
        super(key + " = " + render(value) + ": " + allowed);
        this.key = key;
    }

    /** {@code key} could not be read ({@code message}), for example a missing file or a syntax error. */
    public WeftConfigException(final String key, final String message, final Throwable cause)
    {
        super(key + ": " + message, cause);
        this.key = key;
    }

    /** The dotted HOCON key the problem is about, for example {@code weft.transport.kind}. */
    public String key()
    {
        return key;
    }

    private static String render(final Object value)
    {
        return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    }

    static void check(final boolean condition, final String key, final Object value, final String allowed)
    {
        if (!condition)
        {
            throw new WeftConfigException(key, value, allowed);
        }
    }
}
