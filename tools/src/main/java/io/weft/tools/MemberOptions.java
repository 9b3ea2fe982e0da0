package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;

/** What every member program is started with: the group's configuration file and the member's id. */
public final class MemberOptions
{
    @Option(names = "--config", required = true, description = "The group's HOCON configuration file.")
    public Path file;

    @Option(names = "--member", required = true, description = "This member's id (overrides weft.member.id).")
    public int id;

    /** The configuration in {@link #file} with this member's id; a bad file stops here with a clear error. */
    public WeftConfig load()
    {
        return load(file);
    }

    /** The configuration in {@code other} with this member's id: another group of the same member. */
    public WeftConfig load(final Path other)
    {
        return ConfigLoader.load(other, Map.of("weft.member.id", id));
    }
}
