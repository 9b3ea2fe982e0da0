package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@link KvStore} driven as a client drives it, at one clock reading, its replies as text to compare with what
 * redis-server answers: a number, an error's or status's text, a bulk string (nil for none), an array's or map's
 * items (nested ones too) joined by spaces. The command tests that hold Redis's replies use it.
 */
class StoreClient
{
    static final long NOW = 1_000_000;

    final KvStore store = new KvStore();

    /** Runs {@code words}: byte arrays as they are, anything else as its text in UTF-8. */
    Reply run(final Object... words)
    {
        final List<byte[]> args = new ArrayList<>();
        for (final Object w : words)
        {
            args.add(w instanceof byte[] b ? b : bytes(w.toString()));
        }
        return store.apply(args, NOW);
    }

    /** {@code words} as a command's arguments, each its text in UTF-8. */
    static List<byte[]> args(final String... words)
    {
        final List<byte[]> args = new ArrayList<>(words.length);
        for (final String w : words)
        {
            args.add(bytes(w));
        }
        return args;
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(final Reply r)
    {
        return switch (r)
        {
            case Reply.Int i -> Long.toString(i.value());
            case Reply.Error e -> e.text();
            case Reply.Simple t -> t.text();
            case Reply.Text t -> t.text();
            case Reply.Bulk b -> b.bytes() == null ? "nil" : new String(b.bytes(), StandardCharsets.ISO_8859_1);
            case Reply.Array a -> a.items() == null ? "nil" : joined(a.items());
            case Reply.Double d -> d.text();
            case Reply.Scored m -> joined(m.membersAndScores());
            case Reply.Map m -> joined(m.keysAndValues());
            default -> r.toString();
        };
    }

    /** Asserts that {@code words} reply {@code expected}, naming the command if not. */
    void expect(final String expected, final Object... words)
    {
        assertEquals(expected, text(run(words)), Arrays.stream(words).map(Object::toString)
            .collect(Collectors.joining(" ")));
    }

    private static String joined(final List<Reply> items)
    {
        return items.stream().map(StoreClient::text).collect(Collectors.joining(" "));
    }
}
