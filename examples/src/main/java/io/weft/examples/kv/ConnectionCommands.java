package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The commands a client's connection answers itself on its event loop, never sent through the group: of the
 * connection (HELLO, AUTH, CLIENT, SELECT, MULTI, WATCH, RESET, QUIT, the subscriptions) and of this member (INFO,
 * ROLE, CONFIG, SLOWLOG, LATENCY, SCRIPT, COMMAND, TIME, WAIT, LASTSAVE, REPLCONF).
 */
final class ConnectionCommands
{
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionCommands.class);

    private final KvConnection connection;
    private final ClientSession session;
    private final KvReplica replica;
    private final Clients clients;

    ConnectionCommands(final KvConnection connection, final KvReplica replica, final Clients clients)
    {
        this.connection = connection;
        this.session = connection.session;
        this.replica = replica;
        this.clients = clients;
    }

    /** Answers {@code cmd}; one that fails is logged and answered, and the connection goes on. */
    Reply run(final String cmd, final List<byte[]> args)
    {
        try
        {
            return answer(cmd, args);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return Reply.error(ex.getMessage()); // the command's refusal, as the store answers one
        }
        catch (final RuntimeException ex)
        {
            LOG.error("client {}: command '{}' failed; replied with an error", session.id, Reply.lowerCase(cmd), ex);
            return Reply.internalError(cmd, ex);
        }
    }

    private Reply answer(final String cmd, final List<byte[]> args)
    {
        return switch (cmd)
        {
            case "PING" -> connection.subscribed() && !session.resp3 ? Subscriptions.ping(args) :
                Reply.pong(cmd, args);
            case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE" -> connection.subscriptions().subscribe(args);
            case "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE" -> connection.subscriptions().unsubscribe(args);
            case "PUBSUB" -> connection.subscriptions().pubsub(args);
            case "ECHO" -> Reply.pong(cmd, args);
            case "TIME" -> StoreReport.time();
            case "QUIT" ->
            {
                connection.quit();
                yield Reply.OK;
            }
            case "SELECT" -> OneDatabase.apply(cmd, args);
            case "INFO" -> new Reply.Text(StoreReport.sections(StoreReport.info(replica), args));
            case "WAIT" -> StoreReport.waitReplicas(replica, args);
            case "ROLE" -> StoreReport.role(replica);
            case "HELLO" -> session.hello(args);
            case "AUTH" -> session.auth(args);
            case "ACL" -> Acl.answer(session.user, args);
            case "CLIENT" -> session.client(args, clients, connection);
            case "COMMAND" -> CommandTable.command(args);
            case "CONFIG" -> StoreReport.config(replica, args);
            case "SLOWLOG" -> replica.slowLog.answer(args);
            case "LATENCY" -> replica.latency.answer(args, replica.stats, System.currentTimeMillis() / 1000);
            case "LASTSAVE" -> new Reply.Int(replica.saver.lastSave());
            case "BGSAVE" -> RdbSaver.refusal(args); // SAVE, BGSAVE and SYNC go through the group unless refused
            case "REPLCONF" -> RdbSaver.replconf(session, args);
            case "SYNC", "PSYNC" -> RdbSaver.noReplicas(cmd);
            case "SCRIPT" -> replica.store.scripts.script(args);
            case "RESET" ->
            {
                session.reset();
                connection.reset();
                yield new Reply.Simple("RESET");
            }
            case "MULTI" ->
            {
                connection.multi();
                yield Reply.OK;
            }
            case "EXEC", "DISCARD" -> Reply.error("ERR " + cmd + " without MULTI");
            case "WATCH" -> Transaction.watch(replica, connection.watching, args);
            case "UNWATCH" ->
            {
                connection.watching.clear();
                yield Reply.OK;
            }
            default -> CommandTable.unknown(args);
        };
    }
}
