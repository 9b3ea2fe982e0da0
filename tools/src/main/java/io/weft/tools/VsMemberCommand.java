package io.weft.tools;

import io.weft.config.WeftConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** One member of a virtual-synchrony run (membership tests, {@code chaos}): sends, logs deliveries, obeys commands. */
@Command(name = "vs-member", hidden = true,
    description = "Run one member that sends numbered messages and logs its deliveries and views.")
final class VsMemberCommand implements Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Mixin
    LoggedRunOptions run = new LoggedRunOptions();

    @Option(names = "--callback-send", description = "The delivery callback tries a send that waits; prints the outcome.")
    boolean callbackSend;

    @Option(names = "--invoker", description = "Invoker mode: the main thread runs the passes between its commands.")
    boolean invoker;

    @Option(names = "--leave-on-exit", description = "Leave the group gracefully when stopped (SIGTERM, Ctrl-C).")
    boolean leaveOnExit;

    @Override
    public Integer call() throws Exception
    {
        final WeftConfig c = member.load();
        if (c.subgroups().isEmpty())
        {
            return Weft.refuse("configuration error: weft.subgroups is empty in " + member.file);
        }
        final String problem = run.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        return new VsMember(c, new VsMember.Options(run.join, run.rate, run.size, run.dir, run.timeout, callbackSend,
            invoker, leaveOnExit),
            System.out).run();
    }
}
