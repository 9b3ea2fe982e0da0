package io.weft.tools;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations on the command line: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT2M}). */
public final class DurationConverter implements ITypeConverter<Duration>
{
    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(final String value)
    {
        return parse(value);
    }

    /** Parses {@code value}, or throws naming what is allowed. */
    public static Duration parse(final String value)
    {
        final String v = value.trim();
        final Matcher m = SHORT.matcher(v);
        if (m.matches())
        {
            final long n = Long.parseLong(m.group(1));
            return switch (m.group(2))
            {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try
        {
            return Duration.parse(v);
        }
        catch (final DateTimeParseException ex)
        {
            throw new TypeConversionException("'" + value + "' is not a duration: use 500ms, 10s, 2m, 1h or ISO-8601 " +
                "such as PT2M");
        }
    }
}
