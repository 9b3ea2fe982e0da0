package io.weft.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs a weft command in this JVM with its standard output captured (and echoed for the test report). */
record CommandRun(int code, String output)
{
    static CommandRun of(final String... args)
    {
        final PrintStream before = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final int code;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            code = Weft.commandLine().execute(args);
        }
        finally
        {
            System.setOut(before);
        }
        final String out = captured.toString(StandardCharsets.UTF_8);
        System.out.print(out);
        return new CommandRun(code, out);
    }
}
