package io.weft.examples.kv;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link KeyspaceLookups}: the hits and misses a command counts (before it runs, and as it runs: SORT's patterns),
 * with its keys held and with none, against what redis-server 7.0.15 counted for the same command after the same
 * setup ({@code keyspace-lookups.csv}).
 */
@Timeout(10)
class KeyspaceLookupsTest
{
    private static final long NOW = 1_000_000;

    /** {@code hits/misses} that {@code command} counts after {@code setup} ("|" between commands), and without. */
    @ParameterizedTest(name = "{1}")
    @CsvFileSource(resources = "keyspace-lookups.csv", delimiter = ';', numLinesToSkip = 1)
    void countsAsRedisCounts(final String setup, final String command, final String held, final String none)
    {
        assertEquals(held, counted(setup, command), command + " after " + setup);
        assertEquals(none, counted("", command), command + " with no keys");
    }

    private static String counted(final String setup, final String command)
    {
        final KvStore store = new KvStore();
        for (final String s : setup.isEmpty() ? new String[0] : setup.split("\\|"))
        {
            store.apply(StoreClient.args(s.split(" ")), NOW);
        }
        final List<byte[]> args = StoreClient.args(command.split(" "));
        final KeyspaceLookups lookups = new KeyspaceLookups();
        lookups.count(store, Commands.name(args), args, null, NOW);
        store.lookups = lookups; // and those it makes as it runs, as BatchApplier counts an own client's command
        store.apply(args, NOW);
        return lookups.hits() + "/" + lookups.misses();
    }
}
