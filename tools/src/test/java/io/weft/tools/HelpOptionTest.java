package io.weft.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HelpOptionTest
{
    @Test
    void everySubcommandPrintsItsUsageForHelp()
    {
        final var names = Weft.commandLine().getSubcommands().keySet();
        assertFalse(names.isEmpty());
        for (final String name : names)
        {
            if (name.equals("help"))
            {
                continue;
            }
            final CommandRun run = CommandRun.of(name, "--help");
            assertEquals(0, run.code(), name + " --help");
            assertTrue(run.output().contains("Usage: weft " + name), name + ": " + run.output());
        }
    }
}
