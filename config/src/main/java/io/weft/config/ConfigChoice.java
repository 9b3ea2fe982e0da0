package io.weft.config;

/** An enum whose constants are chosen in configuration files, spelled in lower case with '-' for '_'. */
public interface ConfigChoice
{
    /** How this choice is spelled in a configuration file ({@code ORDERED} is {@code ordered}). */
    default String configName()
    {
        return ConfigNames.of((Enum<?>)this);
    }
}
