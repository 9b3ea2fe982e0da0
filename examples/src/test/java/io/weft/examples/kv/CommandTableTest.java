package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * COMMAND's table. The GETKEYS replies and the errors of COUNT, LIST and GETKEYS were also asked of redis-server
 * 7.0.15: alike (name, arity and key positions of every entry too, but ZRANK's and ZREVRANK's arity, -3 as in 7.2).
 */
@Timeout(10)
class CommandTableTest
{
    /** COUNT counts the entries COMMAND and LIST give: every command the store runs and those answered before it. */
    @Test
    void theTableHoldsEveryCommandAnswered()
    {
        final List<Reply> all = ((Reply.Array)command("COMMAND")).items();
        final List<String> names = all.stream().map(e -> render(((Reply.Array)e).items().getFirst())).toList();
        assertEquals(names, Arrays.stream(render(command("COMMAND", "LIST")).replaceAll("[\\[\\]]", "")
            .split(", ")).filter(name -> !name.contains("|")).toList());
        assertEquals(render(new Reply.Int(all.size())), render(command("command", "count")));
        for (final String c : Commands.names())
        {
            assertTrue(names.contains(c.toLowerCase(Locale.ROOT)), c);
        }
        for (final String c : List.of("multi", "exec", "watch", "subscribe", "hello", "client", "evalsha", "command"))
        {
            assertTrue(names.contains(c), c);
        }
    }

    /**
     * An entry: name, arity, flags (a set: RESP3's ~; fast where redis-server 7.0.15 has it), key positions, and the
     * parts not kept, empty.
     */
    @Test
    void anEntryGivesArityFlagsAndKeyPositions()
    {
        assertEquals("[[get, 2, [readonly, fast], 1, 1, 1, [], [], [], []], null, " +
            "[set, -3, [write, denyoom], 1, 1, 1, [], [], [], []]]", render(command("COMMAND", "INFO", "Get", "no",
            "SET")));
        assertEquals("[[blpop, -3, [write, blocking, noscript], 1, -2, 1, [], [], [], []], " +
            "[mset, -3, [write, denyoom], 1, -1, 2, [], [], [], []], " +
            "[zunionstore, -4, [write, denyoom, movablekeys], 1, 1, 1, [], [], [], []], " +
            "[evalsha_ro, -3, [readonly, noscript, movablekeys], 0, 0, 0, [], [], [], []], " +
            "[publish, 3, [write, pubsub, fast], 0, 0, 0, [], [], [], []], " +
            "[multi, 1, [noscript, fast], 0, 0, 0, [], [], [], []], [time, 1, [fast], 0, 0, 0, [], [], [], []]]",
            render(command("COMMAND", "INFO", "blpop", "mset", "zunionstore", "evalsha_ro", "publish", "multi",
                "time")));
        assertEquals("[[move, 3, [write, fast], 1, 1, 1, [], [], [], []], " +
            "[swapdb, 3, [write, fast], 0, 0, 0, [], [], [], []], " +
            "[select, 2, [fast], 0, 0, 0, [], [], [], []]]", render(command("COMMAND", "INFO", "move", "swapdb",
            "select")));
        final Reply.Array get = (Reply.Array)((Reply.Array)command("COMMAND", "INFO", "get")).items().getFirst();
        assertInstanceOf(Reply.Set.class, get.items().get(2));
    }

    /** GETKEYS finds the keys as Redis does: ranges, steps, counted keys, a script's count that holds none. */
    @Test
    void getKeysFindsTheKeysOfAFullCommand()
    {
        expect("[a, b]", "COMMAND", "GETKEYS", "mset", "a", "1", "b", "2");
        expect("[a, b]", "COMMAND", "GETKEYS", "MSET", "a", "1", "b");
        expect("[a, b]", "COMMAND", "GETKEYS", "blpop", "a", "b", "0");
        expect("[d, a, b]", "COMMAND", "GETKEYS", "bitop", "and", "d", "a", "b");
        expect("[d, a, b]", "COMMAND", "GETKEYS", "zunionstore", "d", "2", "a", "b", "weights", "1", "2");
        expect("[a, b]", "COMMAND", "GETKEYS", "blmpop", "0", "2", "a", "b", "left");
        expect("[a, b]", "COMMAND", "GETKEYS", "sintercard", "2", "a", "b", "limit", "1");
        expect("[a]", "COMMAND", "GETKEYS", "eval", "s", "1", "a", "b", "c");
        expect("[]", "COMMAND", "GETKEYS", "eval", "s", "0");
        expect("[]", "COMMAND", "GETKEYS", "eval", "s", "2", "a");
        expect("[]", "COMMAND", "GETKEYS", "eval", "s", "x", "a");
        expect("[d, s]", "COMMAND", "GETKEYS", "zrangestore", "d", "s", "0", "1");
        expect("[k]", "COMMAND", "GETKEYS", "memory", "usage", "k");
        expect("[a, b]", "COMMAND", "GETKEYS", "watch", "a", "b");
        expect("[l, e]", "COMMAND", "GETKEYS", "sort", "l", "STORE", "d", "LIMIT", "0", "1", "GET", "STORE", "STORE",
            "e");
        expect("[l]", "COMMAND", "GETKEYS", "sort_ro", "l", "GET", "x");
        expect("[k, a, b]", "COMMAND", "GETKEYS", "georadius", "k", "0", "0", "1", "m", "STOREDIST", "b", "STORE", "a");
        expect("[k]", "COMMAND", "GETKEYS", "georadiusbymember", "k", "m", "1", "m", "STORE");
        expect("[d, s]", "COMMAND", "GETKEYS", "geosearchstore", "d", "s", "FROMMEMBER", "m", "BYRADIUS", "1", "m");
        expect("ERR Invalid arguments specified for command", "COMMAND", "GETKEYS", "zunionstore", "d", "3", "a",
            "b");
        expect("ERR Invalid arguments specified for command", "COMMAND", "GETKEYS", "lmpop", "0", "a", "left");
        expect("ERR Invalid arguments specified for command", "COMMAND", "GETKEYS", "zunion", "x", "a");
        expect("ERR Invalid command specified", "COMMAND", "GETKEYS", "nosuch", "a");
        expect("ERR Invalid number of arguments specified for command", "COMMAND", "GETKEYS", "get", "a", "b");
        expect("ERR Invalid number of arguments specified for command", "COMMAND", "GETKEYS", "memory", "usage");
        expect("ERR The command has no key arguments", "COMMAND", "GETKEYS", "publish", "c", "m");
        expect("ERR The command has no key arguments", "COMMAND", "GETKEYS", "memory", "stats");
        expect("ERR wrong number of arguments for 'command|getkeys' command", "COMMAND", "GETKEYS", "get");
    }

    /** LIST's filters, and what is not kept refused by name; wrong subcommands and counts as Redis answers them. */
    @Test
    void listFiltersAndRefusals()
    {
        expect("[get, getbit, getdel, getex, getrange, getset]", "COMMAND", "LIST", "FILTERBY", "PATTERN", "GET*");
        expect("[]", "COMMAND", "LIST", "filterby", "module", "x");
        expect("ERR syntax error", "COMMAND", "LIST", "FILTERBY", "PATTERN");
        expect("ERR syntax error", "COMMAND", "LIST", "FILTERBY", "FOO", "x");
        expect("ERR COMMAND LIST FILTERBY ACLCAT is not supported by this store: it keeps no ACL categories",
            "COMMAND", "LIST", "FILTERBY", "ACLCAT", "read");
        assertTrue(render(command("COMMAND", "DOCS")).startsWith("ERR COMMAND DOCS is not supported"));
        assertTrue(render(command("COMMAND", "GETKEYSANDFLAGS", "get", "a")).startsWith("ERR COMMAND GETKEYSANDFLAGS"));
        expect("ERR wrong number of arguments for 'command|count' command", "COMMAND", "COUNT", "x");
        expect("ERR unknown subcommand 'FOO'. Try COMMAND HELP.", "COMMAND", "FOO");
        assertTrue(render(command("COMMAND", "HELP")).contains("GETKEYS <full-command>"));
    }

    /**
     * The subcommands of the containers answered before the store are entries of their own, listed by name and found
     * by COMMAND INFO container|subcommand, with Redis's arity; COUNT counts the commands only, as Redis; GETKEYS
     * of an unknown subcommand names no command.
     */
    @Test
    void subcommandsAreEntries()
    {
        expect("[[client|list, -2, [noscript], 0, 0, 0, [], [], [], []], " +
            "[config|get, -3, [noscript], 0, 0, 0, [], [], [], []], null, null]", "COMMAND", "INFO", "client|list",
            "CONFIG|GET", "foo|bar", "client|foo");
        final String client = render(command("COMMAND", "INFO", "client"));
        assertTrue(client.startsWith("[[client, -2, [], 0, 0, 0, [], [], [], [[client|getname, 2, "), client);
        assertTrue(client.contains("[client|kill, -3, [noscript], 0, 0, 0, [], [], [], []]"), client);
        expect("[config, config|get, config|help, config|resetstat, config|rewrite, config|set]", "COMMAND", "LIST",
            "FILTERBY", "PATTERN", "config*");
        final int commands = ((Reply.Array)command("COMMAND")).items().size();
        expect(String.valueOf(commands), "COMMAND", "COUNT");
        assertTrue(((Reply.Array)command("COMMAND", "LIST")).items().size() > commands);
        expect("ERR Invalid command specified", "COMMAND", "GETKEYS", "CLIENT", "FOO");
        expect("ERR The command has no key arguments", "COMMAND", "GETKEYS", "client", "list");
        expect("ERR Invalid command specified", "COMMAND", "GETKEYS", "memory", "foo");
        expect("[[memory|usage, -3, [readonly], 2, 2, 1, [], [], [], []]]", "COMMAND", "INFO", "memory|usage");
        // a container has no flags of its own, and only the subcommand that reads a key is readonly, as in Redis
        expect("[[memory|purge, 2, [], 0, 0, 0, [], [], [], []]]", "COMMAND", "INFO", "memory|purge");
        assertTrue(render(command("COMMAND", "INFO", "memory")).startsWith("[[memory, -2, [], 0, 0, 0, [], [], [], " +
            "[[memory|purge, 2, [], 0, 0, 0, [], [], [], []], [memory|usage, -3, [readonly], 2, 2, 1, "));
        expect("[[pubsub|numpat, 2, [pubsub, noscript], 0, 0, 0, [], [], [], []], " +
            "[pubsub|help, 2, [noscript], 0, 0, 0, [], [], [], []]]", "COMMAND", "INFO", "pubsub|numpat", "pubsub|help");
        expect("[[role, 1, [noscript, fast], 0, 0, 0, [], [], [], []]]", "COMMAND", "INFO", "role");
        // XGROUP's subcommands that make a group or a consumer are denyoom, as redis-server 7.0.15 flags them
        expect("[[xgroup|create, -5, [write, denyoom], 2, 2, 1, [], [], [], []], " +
            "[xgroup|createconsumer, 5, [write, denyoom], 2, 2, 1, [], [], [], []], " +
            "[xgroup|setid, -5, [write], 2, 2, 1, [], [], [], []], " +
            "[xgroup|destroy, 4, [write], 2, 2, 1, [], [], [], []]]", "COMMAND", "INFO", "xgroup|create",
            "xgroup|createconsumer", "xgroup|setid", "xgroup|destroy");
        assertTrue(Commands.mayGrow(List.of("XGROUP".getBytes(StandardCharsets.UTF_8),
            "createconsumer".getBytes(StandardCharsets.UTF_8))), "refused past the memory limit");
        assertFalse(Commands.mayGrow(List.of("XGROUP".getBytes(StandardCharsets.UTF_8),
            "DESTROY".getBytes(StandardCharsets.UTF_8))));
    }

    /** COMMAND as a connection answers it: refused as Redis refuses it before it runs, else run. */
    private static Reply command(final String... words)
    {
        final List<byte[]> args = Arrays.stream(words).map(w -> w.getBytes(StandardCharsets.UTF_8)).toList();
        final Reply refused = CommandTable.refusal("COMMAND", args);
        return refused != null ? refused : CommandTable.command(args);
    }

    private static void expect(final String expected, final String... words)
    {
        assertEquals(expected, render(command(words)), String.join(" ", words));
    }

    /** A reply as nested lists: [a, b], null for nil. */
    private static String render(final Reply r)
    {
        return switch (r)
        {
            case Reply.Array a -> a.items().stream().map(CommandTableTest::render)
                .collect(Collectors.joining(", ", "[", "]"));
            case Reply.Set s -> s.items().stream().map(CommandTableTest::render)
                .collect(Collectors.joining(", ", "[", "]"));
            default -> StoreClient.text(r).equals("nil") ? "null" : StoreClient.text(r);
        };
    }
}
