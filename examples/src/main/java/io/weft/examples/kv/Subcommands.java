package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The subcommands of the container commands a member answers itself (CLIENT, COMMAND, CONFIG, PUBSUB, SCRIPT), each
 * with Redis 7.2's arity. Redis looks a subcommand up before it runs the command, so an unknown one and a wrong count
 * of words get the same errors wherever they come, and inside MULTI while queuing, which makes EXEC discard the
 * transaction ({@link CommandTable#refusal}). The subcommands Redis has and this store does not answer are known here
 * too, their arity checked as Redis checks it, and refused with the reason ({@link #unsupported}). HELP lists those
 * answered.
 */
final class Subcommands
{
    /** A subcommand: Redis's arity, and its HELP lines (usage, then what it does) or why this store refuses it. */
    private record Sub(int arity, List<String> help, String refused)
    {
    }

    private static final Map<String, Map<String, Sub>> CONTAINERS = Map.of(
        "CLIENT", table(
            "GETNAME", answered(2, "GETNAME", "The name of this connection, nil if it has none."),
            "GETREDIR", answered(2, "GETREDIR", "-1: no client tracks keys here."),
            "ID", answered(2, "ID", "This connection's id, unique at this member."),
            "INFO", answered(2, "INFO", "This connection as CLIENT LIST shows it."),
            "KILL", answered(-3, "KILL <ip:port> | KILL <filter> <value> [<filter> <value> ...]",
                "Closes this member's connections: from the address, or those that ID, ADDR, LADDR, TYPE, USER,",
                "MAXAGE and SKIPME (YES|NO, default YES) select."),
            "LIST", answered(-2, "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB) | ID <id> [<id> ...]]",
                "This member's connections, one line each."),
            "NO-EVICT", answered(3, "NO-EVICT (ON|OFF)", "Marks this connection (flag e); this store evicts none."),
            "NO-TOUCH", answered(3, "NO-TOUCH (ON|OFF)", "Marks this connection (flag T); this store keeps no " +
                "access times."),
            "SETINFO", answered(4, "SETINFO (LIB-NAME <name> | LIB-VER <version>)",
                "Names the client's library, as CLIENT LIST shows it."),
            "SETNAME", answered(3, "SETNAME <name>", "Names this connection; an empty name removes it."),
            "TRACKINGINFO", answered(2, "TRACKINGINFO", "Tracking is off: this store sends no invalidations."),
            "UNBLOCK", answered(-3, "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                "Ends the wait of this member's client in BLPOP, BZPOPMIN, ...: as its timeout would, or with an",
                "error."),
            "UNPAUSE", answered(2, "UNPAUSE", "OK: no client is ever paused here."),
            "CACHING", refused(3, "ERR CLIENT CACHING is not supported by this store: it sends no invalidation " +
                "messages, so no client may cache values (CLIENT TRACKING is refused too)"),
            "PAUSE", refused(-3, "ERR CLIENT PAUSE is not supported by this store: a member cannot hold the writes " +
                "that reach the group through the other members, and the group fails over without a pause"),
            "REPLY", refused(3, "ERR CLIENT REPLY is not supported by this store: every command is answered"),
            "TRACKING", refused(-3, "ERR CLIENT TRACKING is not supported by this store: it sends no invalidation " +
                "messages, so no client may cache values")),
        "COMMAND", table(
            "COUNT", answered(2, "COUNT", "How many commands this store answers."),
            "GETKEYS", answered(-4, "GETKEYS <full-command>", "The keys a full command names."),
            "INFO", answered(-2, "INFO [<command-name> ...]",
                "The entries of the commands named (nil for one not answered here), of all with none named."),
            "LIST", answered(-2, "LIST [FILTERBY (MODULE <name> | PATTERN <glob>)]", "Their names."),
            "DOCS", refused(-2, "ERR COMMAND DOCS is not supported by this store: it keeps no documentation or key " +
                "flags; COMMAND INFO and GETKEYS answer"),
            "GETKEYSANDFLAGS", refused(-4, "ERR COMMAND GETKEYSANDFLAGS is not supported by this store: it keeps no " +
                "documentation or key flags; COMMAND INFO and GETKEYS answer")),
        "CONFIG", table(
            "GET", answered(-3, "GET <pattern> [<pattern> ...]",
                "The settings whose names a glob matches, with their values."),
            "RESETSTAT", refused(2, fixedSettings("RESETSTAT")),
            "REWRITE", refused(2, fixedSettings("REWRITE")),
            "SET", refused(-4, fixedSettings("SET"))),
        "PUBSUB", table(
            "CHANNELS", answered(-2, "CHANNELS [<pattern>]",
                "The channels with subscribers at this member (those a glob matches)."),
            "NUMPAT", answered(2, "NUMPAT", "How many pattern subscriptions this member has."),
            "NUMSUB", answered(-2, "NUMSUB [<channel> ...]", "Each channel's subscribers at this member."),
            "SHARDCHANNELS", answered(-2, "SHARDCHANNELS [<pattern>]", "None: this store has no shard channels."),
            "SHARDNUMSUB", answered(-2, "SHARDNUMSUB [<shardchannel> ...]", "0 for each: no shard channels.")),
        "SCRIPT", table(
            "EXISTS", answered(-3, "EXISTS <sha1> [<sha1> ...]", "1 for each script this member knows, else 0."),
            "FLUSH", answered(-2, "FLUSH [ASYNC|SYNC]", "Forgets this member's scripts."),
            "LOAD", answered(3, "LOAD <script>", "Compiles a script and keeps it at this member; its SHA1."),
            "DEBUG", refused(3, "ERR SCRIPT DEBUG is not supported by this store: it has no script debugger"),
            "KILL", refused(2, "ERR SCRIPT KILL is not supported by this store: a script runs at every member in " +
                "the group's order, and every member stops it alike at its time limit")));

    private Subcommands()
    {
    }

    private static Sub answered(final int arity, final String... help)
    {
        return new Sub(arity, List.of(help), null);
    }

    private static Sub refused(final int arity, final String why)
    {
        return new Sub(arity, List.of(), why);
    }

    private static String fixedSettings(final String sub)
    {
        return "ERR CONFIG " + sub + " is not supported by this store: its settings are fixed when a member starts " +
            "(weft kv's options); CONFIG GET reads them";
    }

    /** A container's subcommands by name, upper case, HELP's first, in the order HELP lists them. */
    private static Map<String, Sub> table(final Object... namesAndSubs)
    {
        final Map<String, Sub> subs = new LinkedHashMap<>();
        for (int i = 0; i < namesAndSubs.length; i += 2)
        {
            subs.put((String)namesAndSubs[i], (Sub)namesAndSubs[i + 1]);
        }
        subs.put("HELP", answered(2, "HELP", "Prints this help."));
        return subs;
    }

    /** Whether {@code cmd} (upper case) is a container a member answers itself. */
    static boolean isContainer(final String cmd)
    {
        return CONTAINERS.containsKey(cmd);
    }

    /** The subcommands of the container {@code cmd}, upper case, in HELP's order (none for another command). */
    static List<String> of(final String cmd)
    {
        return List.copyOf(CONTAINERS.getOrDefault(cmd, Map.of()).keySet());
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
            return new Reply.Error("ERR unknown subcommand '" + given(args) + "'. Try " + cmd + " HELP.");
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
        return Reply.error("ERR unknown subcommand or wrong number of arguments for '" + given(args) + "'. Try " +
            cmd + " HELP.");
    }

    /** The subcommand as given, cut to 128 characters as Redis cuts it in its errors. */
    private static String given(final List<byte[]> args)
    {
        final String given = KvConnection.text(args.get(1));
        return given.substring(0, Math.min(given.length(), 128));
    }
}
