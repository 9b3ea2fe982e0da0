package io.weft.examples.kv;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * What a client connection says of itself: its id, the name it set, the protocol it chose (HELLO, CLIENT), and what
 * CLIENT LIST tells of it. Only the member's one event loop reads and writes it.
 */
final class ClientSession
{
    final long id;
    /** When it connected ({@link System#nanoTime}). */
    final long connected = System.nanoTime();
    /** The protocol of this connection's replies from the next one on: RESP3 once a HELLO 3 came. */
    boolean resp3;
    String name;
    /** The client's address and the member's, as ip:port. */
    String addr = "";
    String laddr = "";
    /** Its last command's name, upper case (CLIENT's with its subcommand), and when its last burst of them came. */
    String lastCommand = "NULL";
    long lastAt = connected;
    /** What CLIENT SETINFO said of the client's library. */
    private String libName = "";
    private String libVersion = "";

    ClientSession(final long id)
    {
        this.id = id;
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
        final String flags = (sub + psub > 0 ? "P" : "") + (transaction != null ? "x" : "") + (blocked ? "b" : "");
        return "id=" + id + " addr=" + addr + " laddr=" + laddr + " name=" + (name == null ? "" : name) + " age=" +
            (now - connected) / 1_000_000_000L + " idle=" + Math.max(0, now - lastAt) / 1_000_000_000L + " flags=" +
            (flags.isEmpty() ? "N" : flags) + " db=0 sub=" + sub + " psub=" + psub + " ssub=0 multi=" +
            (transaction == null ? -1 : transaction.queued()) + " cmd=" + lastCommand.toLowerCase(Locale.ROOT) +
            " user=default resp=" + (resp3 ? 3 : 2) + " lib-name=" + libName + " lib-ver=" + libVersion;
    }

    /**
     * HELLO [protover [AUTH user pass] [SETNAME name]]: switches this connection to RESP2 or RESP3 (from its own reply
     * on) and answers with the server's properties, a map.
     */
    Reply hello(final List<byte[]> args)
    {
        boolean three = resp3;
        if (args.size() >= 2)
        {
            final String version = KvConnection.text(args.get(1));
            if (!version.equals("2") && !version.equals("3"))
            {
                return Reply.error("NOPROTO unsupported protocol version");
            }
            three = version.equals("3");
        }
        for (int i = 2; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("SETNAME") && i + 1 < args.size())
            {
                name = KvConnection.text(args.get(++i));
            }
            else if (option.equals("AUTH"))
            {
                return Reply.error("ERR this store has no users or passwords: AUTH is not supported");
            }
            else
            {
                return Reply.error("ERR syntax error in HELLO option '" + KvConnection.text(args.get(i)) + "'");
            }
        }
        resp3 = three;
        return new Reply.Map(List.of(Reply.Bulk.of("server"), Reply.Bulk.of("weft-kv"), Reply.Bulk.of("version"),
            Reply.Bulk.of("7.2.0"), Reply.Bulk.of("proto"), new Reply.Int(resp3 ? 3 : 2), Reply.Bulk.of("id"),
            new Reply.Int(id), Reply.Bulk.of("mode"), Reply.Bulk.of("standalone"), Reply.Bulk.of("role"),
            Reply.Bulk.of("master"), Reply.Bulk.of("modules"), new Reply.Array(List.of())));
    }

    Reply client(final List<byte[]> args, final Clients clients, final KvConnection self)
    {
        final String sub = Commands.word(args.get(1));
        lastCommand = "CLIENT|" + sub;
        return switch (sub)
        {
            case "LIST" -> clients.list(args);
            case "INFO" -> args.size() != 2 ? Reply.wrongArity("client|info") :
                Reply.Bulk.of(self.clientLine(System.nanoTime()) + "\n");
            case "KILL" -> args.size() < 3 ? Reply.wrongArity("client|kill") : clients.kill(args, self);
            case "SETNAME" ->
            {
                if (args.size() != 3)
                {
                    yield Reply.wrongArity("client|setname");
                }
                final String n = KvConnection.text(args.get(2));
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
            default -> Reply.error("ERR unknown subcommand '" + KvConnection.text(args.get(1)) + "'. Try CLIENT HELP.");
        };
    }

    /** CLIENT SETINFO LIB-NAME name | LIB-VER version, as Redis 7.2 checks them. */
    private Reply setInfo(final List<byte[]> args)
    {
        if (args.size() != 4)
        {
            return Reply.wrongArity("client|setinfo");
        }
        final String attribute = Commands.word(args.get(2));
        final String value = KvConnection.text(args.get(3));
        if (!attribute.equals("LIB-NAME") && !attribute.equals("LIB-VER"))
        {
            return Reply.error("ERR Unrecognized option '" + KvConnection.text(args.get(2)) + "'");
        }
        if (value.chars().anyMatch(c -> c < '!' || c > '~'))
        {
            return Reply.error("ERR " + KvConnection.text(args.get(2)) + " cannot contain spaces, newlines or " +
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
