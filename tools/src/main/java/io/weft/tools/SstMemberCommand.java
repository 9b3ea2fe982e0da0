package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** One SST demo member; {@code sst-demo} starts these, and they can be started by hand from a sample file. */
@Command(name = "sst-member", description = "Run one member of the SST demo from a configuration file.")
final class SstMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Mixin
    SstRunOptions options = new SstRunOptions();

    @Override
    public Integer call()
    {
        final String problem = options.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        final WeftConfig c = member.load();
        return new SstMember(c, options.workload, options.count, options.timeout, System.out).run();
    }
}
