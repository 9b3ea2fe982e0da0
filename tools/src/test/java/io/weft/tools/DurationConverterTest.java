package io.weft.tools;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DurationConverterTest
{
    @Test
    void shortFormsAndIsoAreAccepted()
    {
        assertEquals(Duration.ofMillis(500), DurationConverter.parse("500ms"));
        assertEquals(Duration.ofSeconds(120), DurationConverter.parse("120s"));
        assertEquals(Duration.ofMinutes(2), DurationConverter.parse("2m"));
        assertEquals(Duration.ofHours(1), DurationConverter.parse("1h"));
        assertEquals(Duration.ofMinutes(2), DurationConverter.parse("PT2M"));
    }

    @Test
    void anythingElseIsRefusedNamingTheForms()
    {
        final TypeConversionException ex = assertThrows(TypeConversionException.class, () -> DurationConverter.parse("2 minutes"));
        assertTrue(ex.getMessage().contains("500ms, 10s, 2m"), ex.getMessage());
    }

    @Test
    void everyCommandTakesTheShortForms()
    {
        final var cli = Weft.commandLine();
        final var parsed = cli.parseArgs("chaos", "--duration", "120s");
        assertEquals(Duration.ofSeconds(120), parsed.subcommand().matchedOptionValue("--duration", Duration.ZERO));
    }
}
