package io.weft.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/** How enum choices are spelled in configuration files: lower case, '-' for '_'. */
final class ConfigNames
{
    private ConfigNames()
    {
    }

    static String of(final Enum<?> choice)
    {
        return choice.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The choice spelled {@code value}, or an error naming {@code key}, the value and every choice there is. */
    static <E extends Enum<E>> E parse(final E[] choices, final String key, final String value)
    {
        for (final E choice : choices)
        {
            if (of(choice).equals(value))
            {
                return choice;
            }
        }
        throw new WeftConfigException(key, value, "must be one of " + allowed(choices));
    }

    static String allowed(final Enum<?>[] choices)
    {
        return Arrays.stream(choices).map(ConfigNames::of).collect(Collectors.joining(", "));
    }

    /**
     * The item of {@code items} named {@code name}, or an error that names the {@code what} asked for, where such
     * items are declared ({@code key}) and the names there are.
     */
    static <T> T named(final List<T> items, final Function<T, String> nameOf, final String name, final String what,
        final String key)
    {
        for (final T item : items)
        {
            if (nameOf.apply(item).equals(name))
            {
                return item;
            }
        }
        throw new IllegalArgumentException("no " + what + " named '" + name + "' in " + key + " " +
            items.stream().map(nameOf).toList());
    }
}
