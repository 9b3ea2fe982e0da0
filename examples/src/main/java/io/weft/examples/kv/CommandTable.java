package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * COMMAND: the commands a member answers, as Redis 7 lists them, for the clients and tools that read the table
 * (redis-cli's help and hints, key routing of cluster-aware clients, read routing by the readonly flag). Each entry
 * gives its name, Redis's arity, the flags this store acts on (write or readonly: how it travels; denyoom: refused
 * while the store is full; blocking, movablekeys, pubsub; noscript: a script may not call it) and where its keys are.
 * The subcommands of the containers are entries too ({@link Subcommands}), with their container's flags. ACL
 * categories, tips and key specifications are not kept (empty), and DOCS and GETKEYSANDFLAGS are refused: with an
 * error redis-cli falls back to its own help, where an empty answer left it with none.
 */
final class CommandTable
{
    /** The commands answered before the store (PING, ECHO, SELECT and TIME are in {@link Commands}), by their arity. */
    private static final Map<String, Integer> ANSWERED_BEFORE_STORE = Map.ofEntries(Map.entry("SUBSCRIBE", -2),
        Map.entry("PSUBSCRIBE", -2), Map.entry("SSUBSCRIBE", -2), Map.entry("UNSUBSCRIBE", -1),
        Map.entry("PUNSUBSCRIBE", -1), Map.entry("SUNSUBSCRIBE", -1),
        Map.entry("PUBSUB", -2), Map.entry("QUIT", -1), Map.entry("INFO", -1),
        Map.entry("WAIT", 3), Map.entry("HELLO", -1), Map.entry("CLIENT", -2), Map.entry("COMMAND", -1),
        Map.entry("CONFIG", -2), Map.entry("SCRIPT", -2), Map.entry("RESET", 1), Map.entry("MULTI", 1),
        Map.entry("EXEC", 1), Map.entry("DISCARD", 1), Map.entry("WATCH", -2), Map.entry("UNWATCH", 1),
        Map.entry("EVALSHA", -3), Map.entry("EVALSHA_RO", -3), Map.entry("AUTH", -2),
        Map.entry("ACL", -2), Map.entry("ROLE", 1), Map.entry("SLOWLOG", -2), Map.entry("LATENCY", -2),
        Map.entry("SAVE", 1), Map.entry("BGSAVE", -1), Map.entry("LASTSAVE", 1), Map.entry("SYNC", 1),
        Map.entry("PSYNC", -3), Map.entry("REPLCONF", -1));

    /**
     * The commands Redis 7.0.15 flags {@code fast} (no work that grows with a value's size, a few lookups at most), of
     * those answered here: COMMAND INFO's flag, and LATENCY's event {@code fast-command} ({@link LatencyMonitor}).
     */
    private static final Set<String> FAST = Set.of("APPEND", "AUTH", "BITFIELD_RO", "BZPOPMAX", "BZPOPMIN", "DBSIZE",
        "DECR", "DECRBY", "DISCARD", "ECHO", "EXISTS", "EXPIRE", "EXPIREAT", "EXPIRETIME", "GET", "GETBIT", "GETDEL",
        "GETEX", "GETSET", "HDEL", "HELLO", "HEXISTS", "HGET", "HINCRBY", "HINCRBYFLOAT", "HLEN", "HMGET", "HMSET",
        "HSET", "HSETNX", "HSTRLEN", "INCR", "INCRBY", "INCRBYFLOAT", "LASTSAVE", "LLEN", "LPOP", "LPUSH", "LPUSHX",
        "MGET", "MOVE", "MULTI", "PERSIST", "PEXPIRE", "PEXPIREAT", "PEXPIRETIME", "PFADD", "PING", "PTTL", "PUBLISH",
        "QUIT", "RENAMENX", "RESET", "ROLE", "RPOP", "RPUSH", "RPUSHX", "SADD", "SCARD", "SELECT", "SETNX",
        "SISMEMBER", "SMISMEMBER", "SMOVE", "SPOP", "SPUBLISH", "SREM", "STRLEN", "SWAPDB", "TIME", "TOUCH", "TTL",
        "TYPE", "UNLINK", "UNWATCH", "WATCH", "XACK", "XADD", "XAUTOCLAIM", "XCLAIM", "XDEL", "XLEN", "XSETID", "ZADD",
        "ZCARD", "ZCOUNT", "ZINCRBY", "ZLEXCOUNT", "ZMSCORE", "ZPOPMAX", "ZPOPMIN", "ZRANK", "ZREM", "ZREVRANK",
        "ZSCORE");

    /**
     * Where a command's keys are: the words first to last (negative: counted from the end) every step, then, when
     * numkeysAt is above 0, as many words after that one as it says (movablekeys; -1: destinations after keywords).
     */
    private record Keys(int first, int last, int step, int numkeysAt)
    {
    }

    private static final Keys NONE = new Keys(0, 0, 0, 0);
    private static final Keys ONE = new Keys(1, 1, 1, 0);
    private static final Keys ALL = new Keys(1, -1, 1, 0);
    private static final Keys TWO = new Keys(1, 2, 1, 0);
    private static final Keys COUNTED = new Keys(0, 0, 0, 1);
    private static final Keys COUNTED_LATER = new Keys(0, 0, 0, 2);
    private static final Keys STORE_COUNTED = new Keys(1, 1, 1, 2);
    /** The first word, and the destinations STORE words name ({@link #destinations}). */
    private static final Keys STORE_AFTER_KEYWORD = new Keys(1, 1, 1, -1);
    /** No key by position: XREAD's and XREADGROUP's are half the words after STREAMS ({@link #destinations}). */
    private static final Keys AFTER_KEYWORD = new Keys(0, 0, 0, -1);
    /** Shard channels, where Redis's table puts keys (a cluster routes them by slot), though they name none. */
    private static final Keys SHARD_CHANNEL = new Keys(1, 1, 1, 0);
    private static final Keys SHARD_CHANNELS = new Keys(1, -1, 1, 0);
    /** MEMORY USAGE's, XGROUP's and XINFO's key: the word after the subcommand. */
    private static final Keys AFTER_SUBCOMMAND = new Keys(2, 2, 1, 0);
    /** Store commands whose keys are not the first word alone; the others' are, and commands before the store none. */
    private static final Map<String, Keys> KEYS = keys();
    /** Every entry by its name, upper case, in order. */
    private static final Map<String, Reply> ENTRIES = entries();
    /** The entries of the subcommands, by their names ({@code CLIENT|LIST}), in order. */
    private static final Map<String, Reply> SUBCOMMANDS = subcommands();

    private CommandTable()
    {
    }

    /** COMMAND [COUNT | LIST [FILTERBY ...] | INFO [name ...] | GETKEYS command ... | HELP]. */
    static Reply command(final List<byte[]> args)
    {
        final int n = args.size();
        if (n == 1)
        {
            return new Reply.Array(List.copyOf(ENTRIES.values()));
        }
        final String sub = Commands.word(args.get(1));
        return switch (sub)
        {
            case "COUNT" -> new Reply.Int(ENTRIES.size());
            case "LIST" -> list(args);
            case "INFO" -> n == 2 ? command(args.subList(0, 1)) : new Reply.Array(args.subList(2, n).stream()
                .map(Commands::word).map(c -> ENTRIES.getOrDefault(c, SUBCOMMANDS.getOrDefault(c, Reply.NIL)))
                .toList());
            case "GETKEYS" -> keys(args.subList(2, n));
            case "HELP" -> Subcommands.help("COMMAND");
            default -> Subcommands.unsupported("COMMAND", args);
        };
    }

    /**
     * LIST [FILTERBY MODULE name | PATTERN glob]: names, lower case, subcommands' too; no modules here, no ACL
     * categories kept.
     */
    private static Reply list(final List<byte[]> args)
    {
        final int n = args.size();
        final List<Reply.Bulk> names = Stream.concat(ENTRIES.keySet().stream(), SUBCOMMANDS.keySet().stream())
            .sorted().map(CommandTable::lowerCaseBulk).toList();
        if (n == 2)
        {
            return new Reply.Array(List.copyOf(names));
        }
        if (n != 5 || !Commands.is(args.get(2), "FILTERBY"))
        {
            return Reply.error("ERR syntax error");
        }
        return switch (Commands.word(args.get(3)))
        {
            case "MODULE" -> new Reply.Array(List.of());
            case "ACLCAT" -> Reply.error("ERR COMMAND LIST FILTERBY ACLCAT is not supported by this store: it keeps " +
                "no ACL categories");
            case "PATTERN" ->
            {
                // Redis matches command names without regard to case
                final byte[] pattern = new String(args.get(4), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT)
                    .getBytes(StandardCharsets.UTF_8);
                yield new Reply.Array(names.stream().filter(name -> Glob.matches(pattern, name.bytes()))
                    .map(name -> (Reply)name).toList());
            }
            default -> Reply.error("ERR syntax error");
        };
    }

    /** GETKEYS: the keys {@code command} names, found as Redis finds them from the table. */
    private static Reply keys(final List<byte[]> command)
    {
        final String name = Commands.word(command.getFirst());
        final String sub = subcommand(name, command);
        if (!ENTRIES.containsKey(name) || sub != null && !Subcommands.has(name, sub))
        {
            return Reply.error("ERR Invalid command specified");
        }
        // Redis's order: a command without keys is told so whatever its arguments
        final Keys keys = positions(name, sub);
        if (keys == NONE || keys == SHARD_CHANNEL || keys == SHARD_CHANNELS)
        {
            return Reply.error("ERR The command has no key arguments");
        }
        if (!fits(name, sub, command.size()))
        {
            return Reply.error("ERR Invalid number of arguments specified for command");
        }
        final List<byte[]> found = keyWords(name, keys, command);
        if (found == null)
        {
            // a script may name no keys, and Redis answers an empty list for one whose count is wrong
            return name.startsWith("EVAL") ? new Reply.Array(List.of()) :
                Reply.error("ERR Invalid arguments specified for command");
        }
        return new Reply.Array(found.stream().map(key -> (Reply)new Reply.Bulk(key)).toList());
    }

    /**
     * The keys a read of the store, {@code command} named {@code name} (upper case), looks up, as GETKEYS finds them
     * (INFO's keyspace_hits and keyspace_misses); none for a command with no keys, or a wrong count of words or keys.
     */
    static List<byte[]> readKeys(final String name, final List<byte[]> command)
    {
        final String sub = subcommand(name, command);
        if (sub != null && !Subcommands.has(name, sub) || !fits(name, sub, command.size()))
        {
            return List.of();
        }
        final List<byte[]> found = keyWords(name, positions(name, sub), command);
        return found == null ? List.of() : found;
    }

    /** The subcommand (upper case) that {@code command} of container {@code name} names; null for no container. */
    private static String subcommand(final String name, final List<byte[]> command)
    {
        return command.size() > 1 && Subcommands.isContainer(name) ? Commands.word(command.get(1)) : null;
    }

    /** Where the keys of command {@code name}, or of its subcommand {@code sub} (null: none), are. */
    private static Keys positions(final String name, final String sub)
    {
        return sub != null ? subcommandKeys(name, sub) : keyPositions(name);
    }

    /** Whether {@code words} words fit the arity of command {@code name}, or of its subcommand {@code sub}. */
    private static boolean fits(final String name, final String sub, final int words)
    {
        return Commands.fitsArity(sub != null ? Subcommands.arity(name, sub) : arity(name), words);
    }

    /**
     * Whether the store command {@code name} (upper case), given {@code words} words, looks up its first word after
     * its name alone, as most do: {@link #readKeys} would find that word and no other. No allocation.
     */
    static boolean firstKeyOnly(final String name, final int words)
    {
        return keyPositions(name) == ONE && !Subcommands.isContainer(name) && Commands.fitsArity(arity(name), words);
    }

    /** The words of {@code command} that {@code keys} names; null when its count of keys is not one. */
    private static List<byte[]> keyWords(final String name, final Keys keys, final List<byte[]> command)
    {
        final List<byte[]> found = new ArrayList<>();
        final int last = keys.last < 0 ? command.size() + keys.last : keys.last;
        for (int i = keys.first; i > 0 && i <= last; i += keys.step)
        {
            found.add(command.get(i));
        }
        destinations(name, command).forEach(at -> found.add(command.get(at)));
        if (keys.numkeysAt > 0)
        {
            final long count = count(command, keys.numkeysAt);
            if (count < 0)
            {
                return null;
            }
            found.addAll(command.subList(keys.numkeysAt + 1, keys.numkeysAt + 1 + (int)count));
        }
        return found;
    }

    /**
     * Where SORT's STORE destination is ({@link Sort#destination}), or GEORADIUS's and GEORADIUSBYMEMBER's: as
     * Redis's key specifications find them, the word after the first STORE past the radius, then after the first
     * STOREDIST; or XREAD's and XREADGROUP's streams, the first half of the words after its first STREAMS.
     */
    private static List<Integer> destinations(final String name, final List<byte[]> command)
    {
        final List<Integer> found = new ArrayList<>();
        if (name.equals("SORT") && Sort.destination(command) > 0)
        {
            found.add(Sort.destination(command));
        }
        for (int i = 1; name.startsWith("XREAD") && i < command.size(); i++)
        {
            if (Commands.is(command.get(i), "STREAMS"))
            {
                for (int k = i + 1; k <= i + (command.size() - i - 1) / 2; k++)
                {
                    found.add(k);
                }
                break;
            }
        }
        if (name.equals("GEORADIUS") || name.equals("GEORADIUSBYMEMBER"))
        {
            for (final String keyword : List.of("STORE", "STOREDIST"))
            {
                for (int i = name.equals("GEORADIUS") ? 6 : 5; i < command.size() - 1; i++)
                {
                    if (Commands.is(command.get(i), keyword))
                    {
                        found.add(i + 1);
                        break;
                    }
                }
            }
        }
        return found;
    }

    /** The count of keys at word {@code at}; -1 if it is not a count the words after it hold (0 only for scripts). */
    private static long count(final List<byte[]> command, final int at)
    {
        try
        {
            final long count = ValueEdits.integer(command.get(at));
            final boolean script = Commands.word(command.getFirst()).startsWith("EVAL");
            return count < (script ? 0 : 1) || count > command.size() - at - 1 ? -1 : count;
        }
        catch (final KvStore.SyntaxError ex)
        {
            return -1;
        }
    }

    /** Whether {@code name} (upper case) is a command this store knows. */
    static boolean known(final String name)
    {
        return ANSWERED_BEFORE_STORE.containsKey(name) || Commands.isQueued(name);
    }

    /**
     * Whether the store answered the command {@code args} with {@code reply}, the refusal Redis gives before running
     * it (a wrong count of words, an unknown subcommand): a rejected call in INFO's commandstats, not a failed one.
     */
    static boolean isRefusal(final List<byte[]> args, final Reply reply)
    {
        if (!(reply instanceof Reply.Error error))
        {
            return false;
        }
        final Reply.Error refusal = refusal(Commands.name(args), args);
        return refusal != null && refusal.text().equals(error.text());
    }

    /**
     * Redis's refusal of the command {@code args}, named {@code cmd} (upper case), before it runs, in Redis's order:
     * an unknown command, an unknown subcommand ({@link Subcommands}), a wrong count of words; null if none.
     */
    static Reply.Error refusal(final String cmd, final List<byte[]> args)
    {
        if (!known(cmd))
        {
            return unknown(args);
        }
        if (args.size() > 1 && Subcommands.isContainer(cmd))
        {
            return Subcommands.refusal(cmd, args);
        }
        return Commands.fitsArity(arity(cmd), args.size()) ? null : Reply.wrongArity(cmd);
    }

    /**
     * The name, upper case, CLIENT LIST gives the command {@code args} named {@code cmd} (upper case) once run: with
     * its subcommand for a container ({@code CLIENT|LIST}), as Redis names them; null (Redis's NULL) for one unknown.
     * Only a container's makes a string: this runs for every command.
     */
    static String listed(final String cmd, final List<byte[]> args)
    {
        if (!known(cmd))
        {
            return null;
        }
        if (args.size() < 2 || !Subcommands.isContainer(cmd))
        {
            return cmd;
        }
        final String sub = Commands.word(args.get(1));
        return Subcommands.has(cmd, sub) ? cmd + "|" + sub : null;
    }

    /**
     * Redis's answer to an unknown command {@code args}: its name, and its arguments each quoted and followed by a
     * space while fewer than 128 characters of them are written (each cut to fit 128), as Redis writes them.
     */
    static Reply.Error unknown(final List<byte[]> args)
    {
        final StringBuilder given = new StringBuilder();
        for (int i = 1; i < args.size() && given.length() < 128; i++)
        {
            final String arg = Commands.text(args.get(i));
            final int room = 128 - given.length();
            given.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
        }
        return new Reply.Error("ERR unknown command '" + cut(args.getFirst()) + "', with args beginning with: " +
            given);
    }

    /** A word as Redis names it in an error: at most 128 characters of it. */
    static String cut(final byte[] word)
    {
        final String text = Commands.text(word);
        return text.substring(0, Math.min(text.length(), 128));
    }

    /** A known command's arity (n, exactly n words with its name; -n, at least n). */
    static int arity(final String name)
    {
        final Integer before = ANSWERED_BEFORE_STORE.get(name);
        return before != null ? before : Commands.arity(name);
    }

    /** Where the keys of the command {@code name} (upper case) are. */
    private static Keys keyPositions(final String name)
    {
        return KEYS.getOrDefault(name, Commands.isQueued(name) ? ONE : NONE);
    }

    private static Reply.Bulk lowerCaseBulk(final String name)
    {
        return Reply.Bulk.of(name.toLowerCase(Locale.ROOT));
    }

    private static Map<String, Keys> keys()
    {
        final Map<String, Keys> keys = new TreeMap<>();
        for (final String c : List.of("DEL", "UNLINK", "EXISTS", "TOUCH", "MGET", "SINTER", "SUNION", "SDIFF",
            "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE", "PFCOUNT", "PFMERGE", "WATCH"))
        {
            keys.put(c, ALL);
        }
        for (final String c : List.of("RENAME", "RENAMENX", "SMOVE", "LMOVE", "RPOPLPUSH", "BLMOVE", "BRPOPLPUSH",
            "COPY", "ZRANGESTORE", "LCS", "GEOSEARCHSTORE"))
        {
            keys.put(c, TWO);
        }
        for (final String c : List.of("BLPOP", "BRPOP", "BZPOPMIN", "BZPOPMAX"))
        {
            keys.put(c, new Keys(1, -2, 1, 0)); // the timeout is last
        }
        for (final String c : List.of("FLUSHDB", "FLUSHALL", "PUBLISH", "KEYS", "SCAN", "DBSIZE", "RANDOMKEY", "PING",
            "ECHO", "MEMORY", "SELECT", "SWAPDB", "TIME", "XGROUP", "XINFO"))
        {
            keys.put(c, NONE);
        }
        for (final String c : List.of("SINTERCARD", "ZINTERCARD", "ZUNION", "ZINTER", "ZDIFF", "LMPOP", "ZMPOP"))
        {
            keys.put(c, COUNTED);
        }
        for (final String c : List.of("BLMPOP", "BZMPOP", "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO"))
        {
            keys.put(c, COUNTED_LATER); // after the timeout, or after the script
        }
        for (final String c : List.of("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"))
        {
            keys.put(c, STORE_COUNTED);
        }
        keys.put("SORT", STORE_AFTER_KEYWORD);
        keys.put("SORT_RO", STORE_AFTER_KEYWORD); // movablekeys in Redis's table too, though it takes no STORE
        keys.put("GEORADIUS", STORE_AFTER_KEYWORD);
        keys.put("GEORADIUSBYMEMBER", STORE_AFTER_KEYWORD);
        keys.put("XREAD", AFTER_KEYWORD);
        keys.put("XREADGROUP", AFTER_KEYWORD);
        keys.put("MSET", new Keys(1, -1, 2, 0));
        keys.put("MSETNX", new Keys(1, -1, 2, 0));
        keys.put("BITOP", new Keys(2, -1, 1, 0));
        keys.put("SPUBLISH", SHARD_CHANNEL);
        keys.put("SSUBSCRIBE", SHARD_CHANNELS);
        keys.put("SUNSUBSCRIBE", SHARD_CHANNELS);
        return keys;
    }

    private static Map<String, Reply> entries()
    {
        final Map<String, Reply> entries = new TreeMap<>();
        for (final String name : Commands.names())
        {
            entries.put(name, entry(name));
        }
        ANSWERED_BEFORE_STORE.keySet().forEach(name -> entries.put(name, entry(name)));
        return entries;
    }

    private static Map<String, Reply> subcommands()
    {
        final Map<String, Reply> entries = new TreeMap<>();
        for (final String name : ENTRIES.keySet())
        {
            for (final String sub : Subcommands.of(name))
            {
                entries.put(name + "|" + sub, subcommandEntry(name, sub));
            }
        }
        return entries;
    }

    /** name, arity, flags, first key, last key, step, ACL categories, tips, key specifications, subcommands. */
    private static Reply entry(final String name)
    {
        final Keys keys = keyPositions(name);
        final List<Reply> subcommands = Subcommands.of(name).stream().map(sub -> subcommandEntry(name, sub)).toList();
        // as in Redis, a container's flags are its subcommands': it has none itself
        final List<Reply> flags = subcommands.isEmpty() ? flags(name, keys) : List.of();
        return new Reply.Array(List.of(lowerCaseBulk(name), new Reply.Int(arity(name)), new Reply.Set(flags),
            new Reply.Int(keys.first), new Reply.Int(keys.last), new Reply.Int(keys.step), new Reply.Set(List.of()),
            new Reply.Set(List.of()), new Reply.Array(List.of()), new Reply.Array(subcommands)));
    }

    /** Whether Redis flags the command {@code name} (upper case) {@code fast}. */
    static boolean isFast(final String name)
    {
        return FAST.contains(name);
    }

    /** The flags of a command that is not a container: how it travels, whether it blocks, where scripts may call it. */
    private static List<Reply> flags(final String name, final Keys keys)
    {
        final String travels = name.startsWith("EVALSHA") ? "EVAL" + name.substring("EVALSHA".length()) : name;
        final List<Reply> flags = new ArrayList<>();
        flag(flags, Commands.isWrite(travels), "write");
        flag(flags, Commands.isRead(travels), "readonly");
        flag(flags, Commands.grows(travels), "denyoom");
        flag(flags, BlockedClients.blocks(name) || name.startsWith("XREAD"), "blocking");
        flag(flags, name.endsWith("PUBLISH") || name.endsWith("SUBSCRIBE"), "pubsub");
        flag(flags, !ScriptRuntime.mayCall(name), "noscript");
        flag(flags, isFast(name), "fast");
        flag(flags, keys.numkeysAt != 0, "movablekeys");
        return flags;
    }

    /**
     * The entry of {@code container}'s subcommand {@code sub}: readonly where it reads keys (MEMORY USAGE), the one
     * Redis flags so; pubsub for PUBSUB's but HELP, as Redis; noscript where its container is; its keys.
     */
    private static Reply subcommandEntry(final String container, final String sub)
    {
        final List<Reply> flags = new ArrayList<>();
        final Keys keys = subcommandKeys(container, sub);
        flag(flags, Commands.isRead(container) && keys != NONE, "readonly");
        flag(flags, Commands.isWrite(container) && keys != NONE, "write");
        flag(flags, Commands.grows(container, sub), "denyoom");
        flag(flags, container.equals("PUBSUB") && !sub.equals("HELP"), "pubsub");
        flag(flags, !ScriptRuntime.mayCall(container), "noscript");
        return new Reply.Array(List.of(Reply.Bulk.of(Subcommands.fullName(container, sub)),
            new Reply.Int(Subcommands.arity(container, sub)), new Reply.Set(flags), new Reply.Int(keys.first),
            new Reply.Int(keys.last), new Reply.Int(keys.step), new Reply.Set(List.of()), new Reply.Set(List.of()),
            new Reply.Array(List.of()), new Reply.Array(List.of())));
    }

    /** Where the keys of {@code container}'s subcommand {@code sub} are: MEMORY USAGE names one; the others none. */
    private static Keys subcommandKeys(final String container, final String sub)
    {
        return container.equals("MEMORY") && sub.equals("USAGE") ||
            (container.equals("XGROUP") || container.equals("XINFO")) && !sub.equals("HELP") ? AFTER_SUBCOMMAND : NONE;
    }

    private static void flag(final List<Reply> flags, final boolean holds, final String flag)
    {
        if (holds)
        {
            flags.add(new Reply.Simple(flag));
        }
    }
}
