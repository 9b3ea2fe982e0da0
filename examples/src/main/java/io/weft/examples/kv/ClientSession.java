package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** What a client connection says of itself: its id, the name it set, the protocol it chose (HELLO, CLIENT). */
final class ClientSession
{
    final long id;
    /** The protocol of this connection's replies from the next one on: RESP3 once a HELLO 3 came. */
    boolean resp3;
    String name;

    ClientSession(final long id)
    {
        this.id = id;
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

    Reply client(final List<byte[]> args)
    {
        final String sub = Commands.word(args.get(1));
        return switch (sub)
        {
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
            case "SETINFO" -> Reply.OK;
            default -> Reply.error("ERR unknown subcommand '" + KvConnection.text(args.get(1)) + "'. Try CLIENT HELP.");
        };
    }
}
