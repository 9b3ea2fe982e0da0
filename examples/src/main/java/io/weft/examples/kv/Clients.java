package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The clients connected to one member, for CLIENT LIST, CLIENT KILL and CLIENT INFO. Only the member's one event loop
 * ({@link KvServer}) reads and changes it, as it runs every connection, so it takes no lock.
 */
final class Clients
{
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

    /** CLIENT LIST [TYPE normal|master|replica|slave|pubsub] [ID id [id ...]]: a line for each client, as Redis's. */
    Reply list(final List<byte[]> args)
    {
        Predicate<KvConnection> chosen = c -> true;
        int i = 2;
        while (i < args.size())
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("TYPE") && i + 1 < args.size())
            {
                final Predicate<KvConnection> type = type(KvConnection.text(args.get(i + 1)));
                if (type == null)
                {
                    return Reply.error("ERR Unknown client type '" + KvConnection.text(args.get(i + 1)) + "'");
                }
                chosen = chosen.and(type);
                i += 2;
            }
            else if (option.equals("ID") && i + 1 < args.size())
            {
                final List<Long> ids = new ArrayList<>();
                for (i++; i < args.size(); i++)
                {
                    final Long id = id(args.get(i));
                    if (id == null)
                    {
                        return Reply.error("ERR Invalid client ID");
                    }
                    ids.add(id);
                }
                chosen = chosen.and(c -> ids.contains(c.session.id));
            }
            else
            {
                return Reply.error("ERR syntax error");
            }
        }
        final long now = System.nanoTime();
        final StringBuilder lines = new StringBuilder();
        for (final KvConnection c : connected.values())
        {
            if (chosen.test(c))
            {
                lines.append(c.clientLine(now)).append('\n');
            }
        }
        return Reply.Bulk.of(lines.toString());
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
            final String addr = KvConnection.text(args.get(2));
            final List<KvConnection> found = matching(c -> c.session.addr.equals(addr));
            found.forEach(c -> c.kill(c == self));
            return found.isEmpty() ? Reply.error("ERR No such client") : Reply.OK;
        }
        Predicate<KvConnection> chosen = c -> true;
        boolean skipMe = true;
        for (int i = 2; i < args.size(); i += 2)
        {
            if (i + 1 == args.size()) // a filter without its value, found in its turn as Redis finds it
            {
                return Reply.error("ERR syntax error");
            }
            final String value = KvConnection.text(args.get(i + 1));
            switch (Commands.word(args.get(i)))
            {
                case "ID" ->
                {
                    final Long id = id(args.get(i + 1));
                    if (id == null || id <= 0)
                    {
                        return Reply.error("ERR client-id should be greater than 0");
                    }
                    chosen = chosen.and(c -> c.session.id == id);
                }
                case "ADDR" -> chosen = chosen.and(c -> c.session.addr.equals(value));
                case "LADDR" -> chosen = chosen.and(c -> c.session.laddr.equals(value));
                case "TYPE" ->
                {
                    final Predicate<KvConnection> type = type(value);
                    if (type == null)
                    {
                        return Reply.error("ERR Unknown client type '" + value + "'");
                    }
                    chosen = chosen.and(type);
                }
                case "USER" ->
                {
                    if (!value.equals("default")) // no users here: every client is Redis's default user
                    {
                        return Reply.error("ERR No such user '" + value + "'");
                    }
                }
                case "MAXAGE" ->
                {
                    final Long seconds = id(args.get(i + 1));
                    if (seconds == null)
                    {
                        return Reply.error("ERR syntax error");
                    }
                    final long now = System.nanoTime();
                    // as Redis: older than that; 0 takes every age
                    chosen = chosen.and(c -> seconds == 0 || (now - c.session.connected) / 1_000_000_000L > seconds);
                }
                case "SKIPME" ->
                {
                    final String yes = value.toLowerCase(Locale.ROOT);
                    if (!yes.equals("yes") && !yes.equals("no"))
                    {
                        return Reply.error("ERR syntax error");
                    }
                    skipMe = yes.equals("yes");
                }
                default ->
                {
                    return Reply.error("ERR syntax error");
                }
            }
        }
        final boolean skip = skipMe;
        final List<KvConnection> found = matching(chosen.and(c -> !skip || c != self));
        found.forEach(c -> c.kill(c == self));
        return new Reply.Int(found.size());
    }

    /** Collected first: closing a connection on this loop removes it from the map at once. */
    private List<KvConnection> matching(final Predicate<KvConnection> chosen)
    {
        return connected.values().stream().filter(chosen).toList();
    }

    /** A client type's test; null for a type Redis does not know. Replicas and masters: none here. */
    private static Predicate<KvConnection> type(final String name)
    {
        return switch (name.toLowerCase(Locale.ROOT))
        {
            case "normal" -> c -> !c.subscribed();
            case "pubsub" -> KvConnection::subscribed;
            case "master", "replica", "slave" -> c -> false;
            default -> null;
        };
    }

    private static Long id(final byte[] word)
    {
        try
        {
            return ValueEdits.integer(word);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return null;
        }
    }
}
