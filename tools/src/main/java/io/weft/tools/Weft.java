package io.weft.tools;

import io.weft.config.WeftConfigException;
import io.weft.membership.GroupJoinException;
import io.weft.membership.GroupRefusedException;
import io.weft.tools.avionics.AvionicsCommand;
import io.weft.tools.avionics.AvionicsMemberCommand;
import io.weft.sst.TransportException;
import io.weft.testkit.ParentWatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code weft} command line. The {@code ./weft} launcher script finds a JDK, builds when needed and runs this
 * with the project's JVM flags; member processes started by demos run it again with the same flags.
 */
// INHERIT: every subcommand, the bench's included, takes --help and --version too
@Command(name = "weft", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT, version = "weft 0.1.0",
    description = "Atomic multicast group communication in the style of Derecho, with the Spindle optimizations.",
    subcommands = {DemoCommand.class, SstDemoCommand.class, SstMemberCommand.class, McMemberCommand.class,
        VsMemberCommand.class, DdsMemberCommand.class, PubSubCommand.class, KvCommand.class, KvMemberCommand.class,
        KvImportCommand.class, AvionicsCommand.class, AvionicsMemberCommand.class, LogCommand.class, ChaosCommand.class,
        RdmaCheckCommand.class,
        CommandLine.HelpCommand.class})
public final class Weft
{
    /** Exit code for bad configuration or arguments. */
    public static final int EXIT_CONFIG = 2;
    /** Exit code when the transport cannot be opened (ports, peers, files). */
    public static final int EXIT_TRANSPORT = 5;

    private Weft()
    {
    }

    /** Prints {@code problem} as the command line's error and returns {@link #EXIT_CONFIG}. */
    public static int refuse(final String problem)
    {
        System.err.println("weft: " + problem);
        return EXIT_CONFIG;
    }

    /**
     * Removes a command's cleanup hook once the command is done. During a shutdown (Ctrl-C, SIGTERM) the hook runs
     * instead, and the JVM refuses the removal: nothing to do then.
     */
    public static void removeShutdownHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook runs, or ran
        }
    }

    public static void main(final String[] args)
    {
        ConsoleLines.install();
        ParentWatch.install(); // a member started by a launcher or a test ends with it
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand of this module; the bench module adds its own. */
    public static CommandLine commandLine()
    {
        final CommandLine cli = new CommandLine(Weft.class);
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) ->
        {
            if (ex instanceof WeftConfigException)
            {
                commandLine.getErr().println("weft: configuration error: " + ex.getMessage());
                return EXIT_CONFIG;
            }
            if (ex instanceof TransportException)
            {
                commandLine.getErr().println("weft: transport error: " + ex.getMessage());
                return EXIT_TRANSPORT;
            }
            if (ex instanceof GroupRefusedException) // started again without --join, a wrong secret: no stack trace
            {
                commandLine.getErr().println("weft: " + ex.getMessage());
                if (commandLine.getCommandSpec().findOption("--join") == null)
                {
                    commandLine.getErr().println("weft: " + commandLine.getCommandName() + " has no --join: it " +
                        "runs from view 0 only; start every member of its group again");
                }
                return EXIT_CONFIG;
            }
            if (ex instanceof GroupJoinException) // not admitted, or the state not received, within the join timeout
            {
                commandLine.getErr().println("weft: " + ex.getMessage());
                if (ex.getCause() instanceof RuntimeException || ex.getCause() instanceof Error)
                {
                    ex.getCause().printStackTrace(commandLine.getErr()); // the state installer's bug, not the network
                }
                return SstMember.EXIT_TIMEOUT;
            }
            throw ex;
        });
        return registerConverters(cli);
    }

    /** Registers the converters every command shares on {@code cli} and every subcommand it has now. */
    public static CommandLine registerConverters(final CommandLine cli)
    {
        return cli.registerConverter(java.time.Duration.class, new DurationConverter());
    }
}
