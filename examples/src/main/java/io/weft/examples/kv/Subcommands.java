package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The subcommands of the container commands (ACL, CLIENT, COMMAND, CONFIG, LATENCY, PUBSUB, SCRIPT, SLOWLOG, answered
 * by a member itself; MEMORY, XGROUP and XINFO, by the store), each with Redis's arity (as redis-server 7.0.15 checks
 * it; NO-TOUCH and SETINFO are 7.2's). Redis looks a subcommand up before it runs the command, so an unknown one and a
 * wrong count of words get the same errors wherever they come, and inside MULTI while queuing, which makes EXEC
 * discard the transaction ({@link CommandTable#refusal}). The subcommands Redis has and this store does not answer
 * are known here too, their arity checked as Redis checks it, and refused with the reason ({@link #unsupported}). HELP
 * lists those answered.
 */
final class Subcommands
{
    /**
     * A subcommand: its name, Redis's arity, and its HELP lines (usage, then what it does) or why this store refuses
     * it.
     */
    private record Sub(String name, int arity, List<String> help, String refused)
    {
    }

    private static final Map<String, Map<String, Sub>> CONTAINERS = Map.ofEntries(
        Map.entry("ACL", table(
            answered(-3, "DELUSER <username> [<username> ...]", "0: default, the one user, cannot be removed."),
            answered(-2, "GENPASS [<bits>]", "A random password of 256 bits, or <bits>, in hex."),
            answered(3, "GETUSER <username>", "The details of default; nil for any other name."),
            answered(2, "LIST", "The user default as Redis's ACL file writes it."),
            answered(2, "USERS", "default: this store's one user."),
            answered(2, "WHOAMI", "default."),
            refused("CAT", -2, "ERR ACL CAT is not supported by this store: it keeps no ACL categories"),
            refused("DRYRUN", -4, oneUser("DRYRUN")),
            refused("LOAD", 2, oneUser("LOAD")),
            refused("LOG", -2, "ERR ACL LOG is not supported by this store: it keeps no log of refused commands"),
            refused("SAVE", 2, oneUser("SAVE")),
            refused("SETUSER", -3, oneUser("SETUSER")))),
        Map.entry("CLIENT", table(
            answered(2, "GETNAME", "The name of this connection, nil if it has none."),
            answered(2, "GETREDIR", "-1: no client tracks keys here."),
            answered(2, "ID", "This connection's id, unique at this member."),
            answered(2, "INFO", "This connection as CLIENT LIST shows it."),
            answered(-3, "KILL <ip:port> | KILL <filter> <value> [<filter> <value> ...]",
                "Closes this member's connections: from the address, or those that ID, ADDR, LADDR, TYPE, USER,",
                "MAXAGE and SKIPME (YES|NO, default YES) select."),
            answered(-2, "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB) | ID <id> [<id> ...]]",
                "This member's connections, one line each."),
            answered(3, "NO-EVICT (ON|OFF)", "Marks this connection (flag e); this store evicts none."),
            answered(3, "NO-TOUCH (ON|OFF)", "Marks this connection (flag T); this store keeps no access times."),
            answered(3, "REPLY (ON|OFF|SKIP)",
                "ON answers this connection's commands (the default); OFF answers none until ON; SKIP not the next."),
            answered(4, "SETINFO (LIB-NAME <name> | LIB-VER <version>)",
                "Names the client's library, as CLIENT LIST shows it."),
            answered(3, "SETNAME <name>", "Names this connection; an empty name removes it."),
            answered(2, "TRACKINGINFO", "Tracking is off: this store sends no invalidations."),
            answered(-3, "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                "Ends the wait of this member's client in a blocking command (BLPOP, BZPOPMIN, ...),",
                "as its timeout would, or with an error."),
            answered(2, "UNPAUSE", "OK: no client is ever paused here."),
            refused("CACHING", 3, "ERR CLIENT CACHING is not supported by this store: it sends no invalidation " +
                "messages, so no client may cache values (CLIENT TRACKING is refused too)"),
            refused("PAUSE", -3, "ERR CLIENT PAUSE is not supported by this store: a member cannot hold the writes " +
                "that reach the group through the other members, and the group fails over without a pause"),
            refused("TRACKING", -3, "ERR CLIENT TRACKING is not supported by this store: it sends no invalidation " +
                "messages, so no client may cache values"))),
        Map.entry("COMMAND", table(
            answered(2, "COUNT", "How many commands this store answers."),
            answered(-4, "GETKEYS <full-command>", "The keys a full command names."),
            answered(-2, "INFO [<command-name> ...]",
                "The entries of the commands named (nil for one not answered here), of all with none named."),
            answered(-2, "LIST [FILTERBY (MODULE <name> | PATTERN <glob>)]", "Their names."),
            refused("DOCS", -2, "ERR COMMAND DOCS is not supported by this store: it keeps no documentation or key " +
                "flags; COMMAND INFO and GETKEYS answer"),
            refused("GETKEYSANDFLAGS", -4, "ERR COMMAND GETKEYSANDFLAGS is not supported by this store: it keeps no " +
                "documentation or key flags; COMMAND INFO and GETKEYS answer"))),
        Map.entry("CONFIG", table(
            answered(-3, "GET <pattern> [<pattern> ...]",
                "The settings whose names a glob matches, with their values."),
            answered(2, "RESETSTAT", "Resets this member's statistics in INFO (commandstats, errorstats, totals)."),
            refused("REWRITE", 2, fixedSettings("REWRITE")),
            refused("SET", -4, fixedSettings("SET")))),
        Map.entry("MEMORY", table(
            answered(2, "PURGE", "OK: the JVM's collector gives memory back itself; there is nothing to purge."),
            answered(-3, "USAGE <key> [SAMPLES <count>]",
                "The bytes <key> and its value take in the store's estimate (all counted: SAMPLES is not needed)."),
            refused("DOCTOR", 2, memoryEstimate("DOCTOR")),
            refused("MALLOC-STATS", 2, memoryEstimate("MALLOC-STATS")),
            refused("STATS", 2, memoryEstimate("STATS")))),
        Map.entry("XGROUP", table(
            answered(-5, "CREATE <key> <groupname> <id|$> [MKSTREAM] [ENTRIESREAD <entries_read>]",
                "A consumer group of the stream at <key> (MKSTREAM: made empty if there is none)."),
            answered(5, "CREATECONSUMER <key> <groupname> <consumer>", "A consumer of the group."),
            answered(5, "DELCONSUMER <key> <groupname> <consumer>",
                "Removes the consumer; the count of its pending entries, which go with it."),
            answered(4, "DESTROY <key> <groupname>", "Removes the group."),
            answered(-5, "SETID <key> <groupname> <id|$> [ENTRIESREAD <entries_read>]",
                "Sets the group's last delivered ID and its count of entries read."))),
        Map.entry("XINFO", table(
            answered(4, "CONSUMERS <key> <groupname>", "The consumers of the group, with their pending entries."),
            answered(3, "GROUPS <key>", "The stream's consumer groups."),
            answered(-3, "STREAM <key> [FULL [COUNT <count>]]", "The stream's counters, first and last entries."))),
        Map.entry("PUBSUB", table(
            answered(-2, "CHANNELS [<pattern>]",
                "The channels with subscribers at this member (those a glob matches)."),
            answered(2, "NUMPAT", "How many pattern subscriptions this member has."),
            answered(-2, "NUMSUB [<channel> ...]", "Each channel's subscribers at this member."),
            answered(-2, "SHARDCHANNELS [<pattern>]",
                "The shard channels with subscribers at this member (those a glob matches)."),
            answered(-2, "SHARDNUMSUB [<shardchannel> ...]", "Each shard channel's subscribers at this member."))),
        Map.entry("LATENCY", table(
            answered(2, "DOCTOR", "A report of this member's latency spikes, for a person to read."),
            answered(3, "GRAPH <event>", "The <event>'s spikes as a graph, for a person to read."),
            answered(-2, "HISTOGRAM [<command> ...]", "The times of the named commands (of all without names), " +
                "in microseconds:", "calls, then each power-of-two bound with the calls that took up to it."),
            answered(3, "HISTORY <event>", "The <event>'s spikes, oldest first: Unix time and milliseconds."),
            answered(2, "LATEST", "Each event's newest spike: name, Unix time, milliseconds, and its worst."),
            answered(-2, "RESET [<event> ...]", "Forgets the named events (all without names); how many it forgot."))),
        Map.entry("SLOWLOG", table(
            answered(-2, "GET [<count>]", "The newest <count> entries of this member's slow log (10 by default, " +
                "-1 for all):", "id, Unix time, microseconds, arguments, client address and client name."),
            answered(2, "LEN", "How many entries the slow log holds."),
            answered(2, "RESET", "Empties the slow log."))),
        Map.entry("SCRIPT", table(
            answered(-3, "EXISTS <sha1> [<sha1> ...]", "1 for each script this member knows, else 0."),
            answered(-2, "FLUSH [ASYNC|SYNC]", "Forgets this member's scripts."),
            answered(3, "LOAD <script>", "Compiles a script and keeps it at this member; its SHA1."),
            refused("DEBUG", 3, "ERR SCRIPT DEBUG is not supported by this store: it has no script debugger"),
            refused("KILL", 2, "ERR SCRIPT KILL is not supported by this store: a script runs at every member in " +
                "the group's order, and every member stops it alike at its time limit"))));

    private Subcommands()
    {
    }

    /** A subcommand this store answers, named by the first word of its usage, the first of its HELP lines. */
    private static Sub answered(final int arity, final String... help)
    {
        return new Sub(help[0].split(" ", 2)[0], arity, List.of(help), null);
    }

    private static Sub refused(final String name, final int arity, final String why)
    {
        return new Sub(name, arity, List.of(), why);
    }

    private static String fixedSettings(final String sub)
    {
        return "ERR CONFIG " + sub + " is not supported by this store: its settings are fixed when a member starts " +
            "(weft kv's options); CONFIG GET reads them";
    }

    private static String oneUser(final String sub)
    {
        return "ERR ACL " + sub + " is not supported by this store: its one user is default, every command open to " +
            "it, with the password of weft kv --requirepass-file or none";
    }

    private static String memoryEstimate(final String sub)
    {
        return "ERR MEMORY " + sub + " is not supported by this store: INFO memory gives the store's estimate, " +
            "MEMORY USAGE a key's";
    }

    /** A container's subcommands by name, upper case, in the order HELP lists them, HELP last. */
    private static Map<String, Sub> table(final Sub... subs)
    {
        final Map<String, Sub> table = new LinkedHashMap<>();
        for (final Sub sub : subs)
        {
            table.put(sub.name, sub);
        }
        table.put("HELP", answered(2, "HELP", "Prints this help."));
        return table;
    }

    /** Whether {@code cmd} (upper case) is a container command. */
    static boolean isContainer(final String cmd)
    {
        return CONTAINERS.containsKey(cmd);
    }

    /** The subcommands of the container {@code cmd}, upper case, in HELP's order (none for another command). */
    static List<String> of(final String cmd)
    {
        return List.copyOf(CONTAINERS.getOrDefault(cmd, Map.of()).keySet());
    }

    /** Whether the container {@code cmd} (upper case) has the subcommand {@code sub} (upper case): no copy made. */
    static boolean has(final String cmd, final String sub)
    {
        final Map<String, Sub> subs = CONTAINERS.get(cmd);
        return subs != null && subs.containsKey(sub);
    }

    /** The arity of {@code cmd}'s subcommand {@code sub} (both upper case, the subcommand known). */
    static int arity(final String cmd, final String sub)
    {
        return CONTAINERS.get(cmd).get(sub).arity;
    }

    /**
     * Redis's refusal of the container command {@code args} named {@code cmd} (upper case) with a subcommand: an
     * unknown one, or a wrong count of words for it; null if neither.
     */
    static Reply.Error refusal(final String cmd, final List<byte[]> args)
    {
        final String sub = Commands.word(args.get(1));
        final Sub found = CONTAINERS.get(cmd).get(sub);
        if (found == null)
        {
            return new Reply.Error("ERR unknown subcommand '" + CommandTable.cut(args.get(1)) + "'. Try " + cmd +
                " HELP.");
        }
        return Commands.fitsArity(found.arity, args.size()) ? null : Reply.wrongArity(fullName(cmd, sub));
    }

    /** The name Redis gives {@code cmd}'s subcommand {@code sub}: {@code client|list}. */
    static String fullName(final String cmd, final String sub)
    {
        return (cmd + "|" + sub).toLowerCase(Locale.ROOT);
    }

    /** The container {@code cmd}'s HELP: its usage line, then each subcommand answered here, and what it does. */
    static Reply help(final String cmd)
    {
        final List<Reply> lines = new ArrayList<>();
        lines.add(new Reply.Simple(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        if (cmd.equals("COMMAND"))
        {
            lines.add(new Reply.Simple("(no subcommand)"));
            lines.add(new Reply.Simple("    Every command this store answers: name, arity, flags and key positions."));
        }
        for (final Sub sub : CONTAINERS.get(cmd).values())
        {
            for (int i = 0; i < sub.help.size(); i++)
            {
                lines.add(new Reply.Simple((i == 0 ? "" : "    ") + sub.help.get(i)));
            }
        }
        return new Reply.Array(lines);
    }

    /**
     * The refusal of {@code cmd}'s subcommand {@code args[1]}, one Redis has and this store does not answer.
     *
     * @throws NullPointerException it is one this store answers: its container's handler missed it
     */
    static Reply unsupported(final String cmd, final List<byte[]> args)
    {
        final String sub = Commands.word(args.get(1));
        return Reply.error(Objects.requireNonNull(CONTAINERS.get(cmd).get(sub).refused, () -> cmd + " " + sub +
            " is answered here, yet its handler did not answer it"));
    }

    /**
     * PUBSUB CHANNELS or SHARDCHANNELS with more than one pattern: Redis's error for a subcommand that its own
     * checks refuse.
     */
    static Reply syntaxError(final String cmd, final List<byte[]> args)
    {
        return Reply.error("ERR unknown subcommand or wrong number of arguments for '" +
            CommandTable.cut(args.get(1)) + "'. Try " + cmd + " HELP.");
    }
}
