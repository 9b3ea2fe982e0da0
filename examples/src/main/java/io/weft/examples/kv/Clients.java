package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The clients connected to one member, for CLIENT LIST, CLIENT KILL, CLIENT UNBLOCK and CLIENT INFO. Only the
 * member's one event loop ({@link KvServer}) reads and changes it, as it runs every connection, so it takes no lock.
 * Bad input throws the store's {@link KvStore.SyntaxError}, which the connection answers as an error.
 */
final class Clients
{
    private static final Reply UNBLOCKED = Reply.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
    /** By id: in the order they connected, as Redis lists them. */
    private final Map<Long, KvConnection> connected = new LinkedHashMap<>();

    void add(final long id, final KvConnection connection)
    {
        connected.put(id, connection);
    }

    void remove(final long id)
    {
        connected.remove(id);
    }

    /** CLIENT LIST [TYPE normal|master|replica|slave|pubsub | ID id [id ...]]: a line for each client, as Redis's. */
    Reply list(final List<byte[]> args)
    {
        final Predicate<KvConnection> chosen = listed(args);
        final long now = System.nanoTime();
        final StringBuilder lines = new StringBuilder();
        for (final KvConnection c : connected.values())
        {
            if (chosen.test(c))
            {
                lines.append(c.clientLine(now)).append('\n');
            }
        }
        return new Reply.Text(lines.toString());
    }

    /** The clients CLIENT LIST's {@code args} choose: all, one TYPE's, or those of the IDs (one or the other). */
    private static Predicate<KvConnection> listed(final List<byte[]> args)
    {
        final String option = args.size() < 4 ? "" : Commands.word(args.get(2));
        if (args.size() == 2)
        {
            return c -> true;
        }
        if (option.equals("TYPE") && args.size() == 4)
        {
            return type(args.get(3));
        }
        if (!option.equals("ID"))
        {
            throw new KvStore.SyntaxError("ERR syntax error");
        }
        final List<Long> ids = new ArrayList<>();
        for (final byte[] id : args.subList(3, args.size()))
        {
            ids.add(ValueEdits.atLeast(id, Long.MIN_VALUE, "ERR Invalid client ID"));
        }
        return c -> ids.contains(c.session.id);
    }

    /**
     * CLIENT KILL ip:port (OK, or an error if no client has that address), or CLIENT KILL with filters (ID id, ADDR
     * ip:port, LADDR ip:port, TYPE type, USER default, MAXAGE seconds as in Redis 7.4, SKIPME yes|no; every one must
     * hold): how many clients it closed. {@code self} is closed after this reply, the others at once.
     */
    Reply kill(final List<byte[]> args, final KvConnection self)
    {
        if (args.size() == 3)
        {
            final String addr = Commands.text(args.get(2));
            final List<KvConnection> found = matching(c -> c.session.addr.equals(addr));
            found.forEach(c -> c.kill(c == self));
            return found.isEmpty() ? Reply.error("ERR No such client") : Reply.OK;
        }
        final List<KvConnection> found = matching(killed(args, self));
        found.forEach(c -> c.kill(c == self));
        return new Reply.Int(found.size());
    }

    /**
     * CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 if this member's client {@code id} waited in a blocking command, its wait
     * now ended as at its timeout or with Redis's UNBLOCKED error ({@link KvConnection#unblock}); else 0.
     */
    Reply unblock(final List<byte[]> args)
    {
        if (args.size() > 4)
        {
            return Subcommands.syntaxError("CLIENT", args);
        }
        final String reason = args.size() == 4 ? Commands.word(args.get(3)) : "TIMEOUT";
        if (!reason.equals("TIMEOUT") && !reason.equals("ERROR"))
        {
            return Reply.error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
        }
        final KvConnection c = connected.get(ValueEdits.integer(args.get(2)));
        return new Reply.Int(c != null && c.unblock(reason.equals("ERROR") ? UNBLOCKED : null) ? 1 : 0);
    }

    /** The clients CLIENT KILL's filters {@code args} choose, asked by {@code self}. */
    private static Predicate<KvConnection> killed(final List<byte[]> args, final KvConnection self)
    {
        Predicate<KvConnection> chosen = c -> true;
        boolean skipMe = true;
        for (int i = 2; i < args.size(); i += 2)
        {
            if (i + 1 == args.size()) // a filter without its value, found in its turn as Redis finds it
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
            final byte[] word = args.get(i + 1);
            final String value = Commands.text(word);
            switch (Commands.word(args.get(i)))
            {
                case "ID" ->
                {
                    final long id = ValueEdits.atLeast(word, 1, "ERR client-id should be greater than 0");
                    chosen = chosen.and(c -> c.session.id == id);
                }
                case "ADDR" -> chosen = chosen.and(c -> c.session.addr.equals(value));
                case "LADDR" -> chosen = chosen.and(c -> c.session.laddr.equals(value));
                case "TYPE" -> chosen = chosen.and(type(word));
                case "USER" ->
                {
                    if (!value.equals("default")) // no users here: every client is Redis's default user
                    {
                        throw new KvStore.SyntaxError("ERR No such user '" + value + "'");
                    }
                }
                case "MAXAGE" ->
                {
                    final long seconds = ValueEdits.atLeast(word, Long.MIN_VALUE, "ERR syntax error");
                    final long now = System.nanoTime();
                    // as Redis: older than that; 0 takes every age
                    chosen = chosen.and(c -> seconds == 0 || (now - c.session.connected) / 1_000_000_000L > seconds);
                }
                case "SKIPME" ->
                {
                    final String yes = value.toLowerCase(Locale.ROOT);
                    if (!yes.equals("yes") && !yes.equals("no"))
                    {
                        throw new KvStore.SyntaxError("ERR syntax error");
                    }
                    skipMe = yes.equals("yes");
                }
                default -> throw new KvStore.SyntaxError("ERR syntax error");
            }
        }
        final boolean skip = skipMe;
        return chosen.and(c -> !skip || c != self);
    }

    /** Collected first: closing a connection on this loop removes it from the map at once. */
    private List<KvConnection> matching(final Predicate<KvConnection> chosen)
    {
        return connected.values().stream().filter(chosen).toList();
    }

    /** A client type's test; refused for a type Redis does not know. Replicas and masters: none here. */
    private static Predicate<KvConnection> type(final byte[] word)
    {
        final String name = Commands.text(word);
        return switch (name.toLowerCase(Locale.ROOT))
        {
            case "normal" -> c -> !c.subscribed();
            case "pubsub" -> KvConnection::subscribed;
            case "master", "replica", "slave" -> c -> false;
            default -> throw new KvStore.SyntaxError("ERR Unknown client type '" + name + "'");
        };
    }
}
