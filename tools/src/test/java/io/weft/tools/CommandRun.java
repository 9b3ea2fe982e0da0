package io.weft.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs a weft command in this JVM with its standard output and error captured (and echoed for the test report). */
record CommandRun(int code, String output, String errors)
{
    static CommandRun of(final String... args)
    {
        final PrintStream out = System.out;
        final PrintStream err = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final ByteArrayOutputStream capturedErrors = new ByteArrayOutputStream();
        final int code;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(capturedErrors, true, StandardCharsets.UTF_8));
        try
        {
            code = Weft.commandLine().execute(args);
        }
        finally
        {
            System.setOut(out);
            System.setErr(err);
        }
        final CommandRun run = new CommandRun(code, captured.toString(StandardCharsets.UTF_8),
            capturedErrors.toString(StandardCharsets.UTF_8));
        System.out.print(run.output);
        System.err.print(run.errors);
        return run;
    }
}
