package io.weft.tools.avionics;

import io.weft.config.WeftConfig;
import io.weft.examples.avionics.Avionics;
import io.weft.examples.avionics.AvionicsMember;
import io.weft.tools.MemberOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** {@code weft avionics-member}: one member of the avionics demo (started by {@code weft avionics}). */
@Command(name = "avionics-member", hidden = true,
    description = "Run one member of the avionics demo; commands come on standard input.")
public final class AvionicsMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--join", description = "Join the running domain instead of starting view 0.")
    boolean join;

    @Option(names = "--dashboard-port", defaultValue = "-1", description = "Serve the dashboard on this loopback " +
        "port (0: any free one; default: no dashboard).")
    int dashboardPort;

    @Override
    public Integer call() throws Exception
    {
        final WeftConfig c = member.load();
        Avionics.role(member.id); // an unknown id stops here, with the ids there are
        return new AvionicsMember(c, join, dashboardPort).run();
    }
}
