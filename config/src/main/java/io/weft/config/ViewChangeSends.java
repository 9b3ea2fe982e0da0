package io.weft.config;

import java.util.Locale;

/** What a send issued while the view changes does; it never vanishes either way. */
public enum ViewChangeSends
{
    /** Wait (within the send's own timeout) and go into the next view. */
    WAIT,
    /** Fail at once with an exception saying a view change is in progress; the caller retries. */
    FAIL;

    public String configName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ViewChangeSends parse(final String key, final String value)
    {
        for (final ViewChangeSends v : values())
        {
            if (v.configName().equals(value))
            {
                return v;
            }
        }
        throw new WeftConfigException(key, value, "must be wait or fail");
    }
}
