package io.weft.examples.kv;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What a client connection says of itself: its id, the name it set, the protocol it chose (HELLO, CLIENT), whether it
 * authenticated (AUTH), and what CLIENT LIST tells of it. Only the member's one event loop reads and writes it.
 */
final class ClientSession
{
    /** What a RESP2 connection that subscribed may send, as in Redis. */
    private static final Set<String> SUBSCRIBED_RESP2 = Set.of("SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE",
        "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "PING", "QUIT", "RESET");
    /** What a connection that has not authenticated may send, as in Redis (HELLO only with AUTH). */
    private static final Set<String> BEFORE_AUTH = Set.of("AUTH", "HELLO", "QUIT", "RESET");
    private static final Reply NO_AUTH = Reply.error("NOAUTH Authentication required.");

    final long id;
    /** Who may use this store: whether and how this connection must authenticate. */
    final DefaultUser user;
    /** Whether its commands may run: AUTH (or HELLO AUTH) took its password, or none is needed. */
    boolean authenticated;
    /** When it connected ({@link System#nanoTime}). */
    final long connected = System.nanoTime();
    /** The protocol of this connection's replies from the next one on: RESP3 once a HELLO 3 came. */
    boolean resp3;
    String name;
    /** The client's address and the member's, as ip:port. */
    String addr = "";
    String laddr = "";
    /**
     * Its last command's name as CLIENT LIST names it, upper case ({@link CommandTable#listed}; null: none or unknown),
     * and when its last burst of commands came.
     */
    String lastCommand;
    long lastAt = connected;
    /** REPLCONF rdb-only 1: SYNC answers this member's RDB, as for {@code redis-cli --rdb} ({@link RdbSaver}). */
    boolean rdbOnly;
    /** What CLIENT SETINFO said of the client's library. */
    private String libName = "";
    private String libVersion = "";
    /** What CLIENT NO-EVICT and NO-TOUCH said. */
    private boolean noEvict;
    private boolean noTouch;
    /** CLIENT REPLY: OFF until ON or RESET; SKIP, for the command being run, and for the one after it. */
    private boolean repliesOff;
    private boolean skipping;
    private boolean skipNext;

    ClientSession(final long id, final DefaultUser user)
    {
        this.id = id;
        this.user = user;
        this.authenticated = !user.required();
    }

    /**
     * Event loop: the refusal of command {@code named} ({@code given}) if this connection may not send it now: not
     * authenticated, or a RESP2 connection that {@code subscribed}; null if it may.
     */
    Command mayNotSend(final String named, final List<byte[]> given, final boolean subscribed)
    {
        if (!authenticated && !BEFORE_AUTH.contains(named)) // as Redis: its checks of the words first
        {
            return Command.refused(Objects.requireNonNullElse(CommandTable.refusal(named, given), NO_AUTH), resp3);
        }
        if (subscribed && !resp3 && !SUBSCRIBED_RESP2.contains(named))
        {
            return Command.refused(Reply.error("ERR Can't execute '" + named.toLowerCase(Locale.ROOT) + "': only " +
                "(P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"), false);
        }
        return null;
    }

    /** The connection's two ends, known once it is active. */
    void connectedTo(final SocketAddress remote, final SocketAddress local)
    {
        addr = text(remote);
        laddr = text(local);
    }

    private static String text(final SocketAddress address)
    {
        return address instanceof InetSocketAddress a ? a.getAddress().getHostAddress() + ":" + a.getPort() :
            String.valueOf(address);
    }

    /**
     * Its CLIENT LIST line at {@code now}, in Redis 7.2's words and order, without the fields of Redis's own memory
     * and file descriptors; {@code subscriptions} and {@code transaction} may be null, {@code blocked} says whether a
     * blocking command waits.
     */
    String line(final long now, final Subscriptions subscriptions, final Transaction transaction,
        final boolean blocked)
    {
        final int sub = subscriptions == null ? 0 : subscriptions.channels();
        final int psub = subscriptions == null ? 0 : subscriptions.patterns();
        final int ssub = subscriptions == null ? 0 : subscriptions.shards();
        final String flags = (sub + psub + ssub > 0 ? "P" : "") + (transaction != null ? "x" : "") +
            (blocked ? "b" : "") + (noEvict ? "e" : "") + (noTouch ? "T" : "");
        return "id=" + id + " addr=" + addr + " laddr=" + laddr + " name=" + (name == null ? "" : name) + " age=" +
            (now - connected) / 1_000_000_000L + " idle=" + Math.max(0, now - lastAt) / 1_000_000_000L + " flags=" +
            (flags.isEmpty() ? "N" : flags) + " db=0 sub=" + sub + " psub=" + psub + " ssub=" + ssub + " multi=" +
            (transaction == null ? -1 : transaction.queued()) + " cmd=" +
            (lastCommand == null ? "NULL" : lastCommand.toLowerCase(Locale.ROOT)) +
            " user=default resp=" + (resp3 ? 3 : 2) + " lib-name=" + libName + " lib-ver=" + libVersion;
    }

    /**
     * HELLO [protover [AUTH user pass] [SETNAME name]]: switches this connection to RESP2 or RESP3 (from its own reply
     * on) and answers with the server's properties, a map; authenticates it first ({@link DefaultUser}), and refuses
     * one that has not authenticated, in Redis 7.0's order and words (SETNAME is taken as its options are read).
     */
    Reply hello(final List<byte[]> args)
    {
        boolean three = resp3;
        if (args.size() >= 2)
        {
            final String version = Commands.text(args.get(1));
            if (!version.matches("-?[0-9]{1,18}"))
            {
                return Reply.error("ERR Protocol version is not an integer or out of range");
            }
            if (!version.equals("2") && !version.equals("3"))
            {
                return Reply.error("NOPROTO unsupported protocol version");
            }
            three = version.equals("3");
        }
        int auth = 0; // where AUTH's user is
        for (int i = 2; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("AUTH") && i + 2 < args.size())
            {
                auth = ++i;
                i++;
            }
            else if (option.equals("SETNAME") && i + 1 < args.size())
            {
                name = Commands.text(args.get(++i));
            }
            else
            {
                return Reply.error("ERR Syntax error in HELLO option '" + Commands.text(args.get(i)) + "'");
            }
        }
        if (auth > 0 && !authenticate(args.get(auth), args.get(auth + 1)))
        {
            return DefaultUser.WRONG_PASS;
        }
        if (!authenticated)
        {
            return Reply.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the " +
                "HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP " +
                "protocol version at the same time");
        }
        resp3 = three;
        return new Reply.Map(List.of(Reply.Bulk.of("server"), Reply.Bulk.of("weft-kv"), Reply.Bulk.of("version"),
            Reply.Bulk.of("7.2.0"), Reply.Bulk.of("proto"), new Reply.Int(resp3 ? 3 : 2), Reply.Bulk.of("id"),
            new Reply.Int(id), Reply.Bulk.of("mode"), Reply.Bulk.of("standalone"), Reply.Bulk.of("role"),
            Reply.Bulk.of("master"), Reply.Bulk.of("modules"), new Reply.Array(List.of())));
    }

    /**
     * AUTH [username] password, in Redis's words ({@link DefaultUser}); one that fails leaves the connection as it
     * was, as in Redis.
     */
    Reply auth(final List<byte[]> args)
    {
        if (args.size() > 3)
        {
            return Reply.error("ERR syntax error");
        }
        if (args.size() == 2 && !user.required())
        {
            return Reply.error("ERR AUTH <password> called without any password configured for the default user. " +
                "Are you sure your configuration is correct?");
        }
        return authenticate(args.size() == 3 ? args.get(1) : DefaultUser.NAME, args.getLast()) ? Reply.OK :
            DefaultUser.WRONG_PASS;
    }

    private boolean authenticate(final byte[] userName, final byte[] password)
    {
        final boolean accepted = user.accepts(userName, password);
        authenticated |= accepted;
        return accepted;
    }

    /** CLIENT's subcommands, their arity checked before ({@link Subcommands}). */
    Reply client(final List<byte[]> args, final Clients clients, final KvConnection self)
    {
        return switch (Commands.word(args.get(1)))
        {
            case "LIST" -> clients.list(args);
            case "INFO" -> new Reply.Text(self.clientLine(System.nanoTime()) + "\n");
            case "KILL" -> clients.kill(args, self);
            case "UNBLOCK" -> clients.unblock(args);
            case "SETNAME" ->
            {
                final String n = Commands.text(args.get(2));
                if (n.chars().anyMatch(c -> c <= ' ' || c > '~'))
                {
                    yield Reply.error("ERR Client names cannot contain spaces, newlines or special characters.");
                }
                name = n.isEmpty() ? null : n;
                yield Reply.OK;
            }
            case "GETNAME" -> new Reply.Bulk(name == null ? null : name.getBytes(StandardCharsets.UTF_8));
            case "ID" -> new Reply.Int(id);
            case "SETINFO" -> setInfo(args);
            case "NO-EVICT", "NO-TOUCH" -> mark(args);
            case "REPLY" -> reply(args);
            case "GETREDIR" -> new Reply.Int(-1);
            case "TRACKINGINFO" -> new Reply.Map(List.of(Reply.Bulk.of("flags"), new Reply.Set(List.of(Reply.Bulk.of(
                "off"))), Reply.Bulk.of("redirect"), new Reply.Int(-1), Reply.Bulk.of("prefixes"),
                new Reply.Array(List.of())));
            case "UNPAUSE" -> Reply.OK;
            case "HELP" -> Subcommands.help("CLIENT");
            default -> Subcommands.unsupported("CLIENT", args);
        };
    }

    /**
     * Event loop: {@code command}, just run, marked not to be answered if CLIENT REPLY turned replies off or skips it:
     * as Redis, this is decided once the command ran, so REPLY ON and RESET are answered and REPLY OFF and SKIP are
     * not; a SKIP then moves on to the next command.
     */
    Command answerOrNot(final Command command)
    {
        command.unsent = repliesOff || skipping;
        skipping = skipNext;
        skipNext = false;
        return command;
    }

    /** Event loop: a published message to write, dropped while CLIENT REPLY is OFF, as Redis drops it. */
    Command push(final Reply message)
    {
        final Command push = Command.answered(message, resp3);
        push.unsent = repliesOff;
        return push;
    }

    /**
     * RESET: no name, RESP2, every reply sent, not authenticated if the store has a password, as Redis resets a
     * connection (its own reply in RESP2 too).
     */
    void reset()
    {
        name = null;
        resp3 = false;
        rdbOnly = false;
        authenticated = !user.required();
        repliesOn();
    }

    private void repliesOn()
    {
        repliesOff = false;
        skipping = false;
        skipNext = false;
    }

    /** CLIENT REPLY ON|OFF|SKIP (see {@link #answerOrNot}); SKIP while OFF does nothing, as in Redis. */
    private Reply reply(final List<byte[]> args)
    {
        switch (Commands.word(args.get(2)))
        {
            case "ON" -> repliesOn();
            case "OFF" -> repliesOff = true;
            case "SKIP" ->
            {
                skipping = true;
                skipNext = !repliesOff;
            }
            default ->
            {
                return Reply.error("ERR syntax error");
            }
        }
        return Reply.OK;
    }

    /**
     * CLIENT NO-EVICT or NO-TOUCH ON|OFF: kept for CLIENT LIST's flags (e, T); neither changes what this store does,
     * as it evicts no key and keeps no access times.
     */
    private Reply mark(final List<byte[]> args)
    {
        final String value = Commands.word(args.get(2));
        if (!value.equals("ON") && !value.equals("OFF"))
        {
            return Reply.error("ERR syntax error");
        }
        if (Commands.word(args.get(1)).equals("NO-EVICT"))
        {
            noEvict = value.equals("ON");
        }
        else
        {
            noTouch = value.equals("ON");
        }
        return Reply.OK;
    }

    /** CLIENT SETINFO LIB-NAME name | LIB-VER version, as Redis 7.2 checks them. */
    private Reply setInfo(final List<byte[]> args)
    {
        final String attribute = Commands.word(args.get(2));
        final String value = Commands.text(args.get(3));
        if (!attribute.equals("LIB-NAME") && !attribute.equals("LIB-VER"))
        {
            return Reply.error("ERR Unrecognized option '" + Commands.text(args.get(2)) + "'");
        }
        if (value.chars().anyMatch(c -> c < '!' || c > '~'))
        {
            return Reply.error("ERR " + Commands.text(args.get(2)) + " cannot contain spaces, newlines or " +
                "special characters.");
        }
        if (attribute.equals("LIB-NAME"))
        {
            libName = value;
        }
        else
        {
            libVersion = value;
        }
        return Reply.OK;
    }
}
