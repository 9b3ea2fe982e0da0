package io.weft.config;

/** What a send issued while the view changes does; it never vanishes either way. */
public enum ViewChangeSends implements ConfigChoice
{
    /** Wait (within the send's own timeout) and go into the next view. */
    WAIT,
    /** Fail at once with an exception saying a view change is in progress; the caller retries. */
    FAIL;

    /** The constant spelled {@code value} in a configuration file; otherwise an error naming {@code key}. */
    public static ViewChangeSends parse(final String key, final String value)
    {
        return ConfigNames.parse(values(), key, value);
    }
}
