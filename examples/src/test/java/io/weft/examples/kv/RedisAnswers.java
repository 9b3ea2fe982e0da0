package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.List;

import static io.weft.examples.kv.ScriptsTest.text;
import static io.weft.examples.kv.StoreClient.args;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scripts and the answers redis-server gave them, one a row {@code K|expression|answer}: K is P for a packed string
 * shown in hex, R for a body whose packed result is shown so, V for what the expression gives
 * ({@link ScriptsTest#text}); an error is compared by its text without Redis's "user_script:1: " place (LuaJ gives it
 * only at times) and the script's SHA-1 after it.
 */
final class RedisAnswers
{
    private static final long NOW = 1_700_000_000_123L;
    private static final String HEX = "local function hex(s) return (string.gsub(s, '.', function(c) " +
        "return string.format('%02x', string.byte(c)) end)) end ";

    private RedisAnswers()
    {
    }

    /** {@return each row whose script answers otherwise here, with both answers} (a fresh store runs them in turn) */
    static List<String> unlike(final String rows)
    {
        final KvStore store = new KvStore();
        final List<String> unlike = new ArrayList<>();
        for (final String row : rows.strip().split("\n"))
        {
            final String[] c = row.strip().split("\\|", 3);
            final String script = switch (c[0])
            {
                case "P" -> HEX + "return hex(" + c[1] + ")";
                case "R" -> HEX + "return hex((function() " + c[1] + " end)())";
                default -> "return " + c[1];
            };
            final String answer = text(eval(store, script)).replace("-ERR user_script:1: ", "-ERR ");
            if (!(c[2].startsWith("-ERR ") ? answer.startsWith(c[2] + " script: ") : answer.equals(c[2])))
            {
                unlike.add(c[1] + " answered " + answer + ", redis-server " + c[2]);
            }
        }
        return unlike;
    }

    /** {@code script}, without keys or arguments, on {@code store}. */
    static Reply eval(final KvStore store, final String script)
    {
        return store.apply(args("EVAL", script, "0"), NOW);
    }

    /** Asserts that {@code script} fails on {@code store} reading {@code global}, a global it does not have. */
    static void assertUnknownGlobal(final KvStore store, final String global, final String script)
    {
        final String answer = text(eval(store, script));
        assertTrue(answer.startsWith("-ERR user_script:1: Script attempted to access nonexistent global variable '" +
            global + "' script: "), answer);
    }
}
