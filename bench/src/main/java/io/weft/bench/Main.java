package io.weft.bench;

import io.weft.testkit.ParentWatch;
import io.weft.tools.ConsoleLines;
import io.weft.tools.Weft;
import picocli.CommandLine;

/** The launcher's entry point: every command of {@link Weft} plus {@code bench}. */
public final class Main
{
    private Main()
    {
    }

    public static void main(final String[] args)
    {
        ConsoleLines.install();
        ParentWatch.install(); // a member started by a launcher or a test ends with it
        final CommandLine cli = Weft.commandLine();
        cli.addSubcommand("bench", new CommandLine(new BenchCommand()).addSubcommand("ablation", new AblationCommand())
            .addSubcommand("compare", new CompareCommand()).addSubcommand("dds", new DdsBenchCommand())
            .addSubcommand("kv", new KvBenchCommand()));
        cli.addSubcommand("bench-member", new BenchMemberCommand());
        Weft.registerConverters(cli);
        System.exit(cli.execute(args));
    }
}
