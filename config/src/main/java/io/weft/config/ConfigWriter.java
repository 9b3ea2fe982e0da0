package io.weft.config;

import java.util.stream.Collectors;

/** Renders a {@link WeftConfig} as HOCON that {@link ConfigLoader} reads back to an equal configuration. */
public final class ConfigWriter
{
    private ConfigWriter()
    {
    }

    private static String ids(final java.util.List<Integer> ids)
    {
        return ids.isEmpty() ? "all" : ids.toString();
    }

    /** {@code c} as a HOCON file that {@link ConfigLoader} reads back to an equal configuration. */
    public static String render(final WeftConfig c)
    {
        final String members = c.group().members().stream()
            .map(m -> "      { id = %d, host = \"%s\", sst-port = %d, control-port = %d }"
                .formatted(m.id(), m.host(), m.sstPort(), m.controlPort()))
            .collect(Collectors.joining(",\n"));
        final String subgroups = c.declaredSubgroups().stream()
            .map(s -> "    { name = \"%s\", members = %s, senders = %s, window = %d, max-payload = %d, mode = %s }"
                .formatted(s.name(), ids(s.members()), ids(s.senders()), s.window(), s.maxPayload(),
                    s.mode().configName()))
            .collect(Collectors.joining(",\n"));
        final String topics = c.dds().topics().stream()
            .map(t -> ("    { name = \"%s\", id = %d, qos = %s, publishers = %s, subscribers = %s, window = %d, " +
                "max-sample = %d, history = %d, key = %s }").formatted(t.name(), t.id(), t.qos().configName(),
                ids(t.publishers()), ids(t.subscribers()), t.window(), t.maxSample(), t.history(), t.key() == null ?
                "none" : "{ offset = %d, length = %d, max-keys = %d }".formatted(t.key().offset(), t.key().length(),
                t.key().maxKeys())))
            .collect(Collectors.joining(",\n"));
        return """
            weft {
              member.id = %d
              group {
                name = "%s"
                members = [
            %s
                ]
              }
              transport {
                kind = %s
                connect-timeout = %dms
                shm.directory = "%s"
                shm.zero-copy = %b
                tcp {
                  send-buffer = %d
                  socket-buffer = %d
                  no-delay = %b
                  threading = %s
                }
                rdma {
                  backend = %s
                  provider = "%s"
                  verbs {
                    library = "%s"
                    device = "%s"
                    port = %d
                    gid-index = %d
                  }
                  threading = %s
                }
              }
              idle {
                strategy = %s
                max-spins = %d
                max-yields = %d
                max-park = %dus
                yield-after-work = %s
              }
              failure {
                heartbeat-interval = %dms
                failure-timeout = %dms
              }
              subgroups = [
            %s
              ]
              smc {
                send-batching = %b
                receive-batching = %b
                delivery-batching = %b
                null-sends = %b
                early-lock-release = %b
                lazy-nulls = %b
                lazy-delivered = %b
              }
              membership {
                initial-view = %s
                secret = %s
                send-during-view-change = %s
                join-timeout = %dms
                runtime-subgroups = %b
              }
              dds {
                log-directory = %s
                log-drop-behind = %s
                topics = [
            %s
                ]
              }
            }
            """.formatted(c.memberId(), c.group().name(), members, c.transport().kind().configName(),
            c.transport().connectTimeout().toMillis(), c.transport().shm().directory(), c.transport().shm().zeroCopy(),
            c.transport().tcp().sendBufferBytes(), c.transport().tcp().socketBufferBytes(),
            c.transport().tcp().noDelay(),
            c.transport().tcp().threading().configName(),
            c.transport().rdma().backend().configName(), c.transport().rdma().provider(),
            c.transport().rdma().verbs().library(), c.transport().rdma().verbs().device(),
            c.transport().rdma().verbs().port(), c.transport().rdma().verbs().gidIndex(),
            c.transport().rdma().threading().configName(),
            c.idle().strategy().configName(), c.idle().maxSpins(), c.idle().maxYields(),
            c.idle().maxPark().toNanos() / 1000,
            c.idle().yieldAfterWork().configName(),
            c.failure().heartbeatInterval().toMillis(), c.failure().failureTimeout().toMillis(), subgroups,
            c.smc().sendBatching(), c.smc().receiveBatching(), c.smc().deliveryBatching(), c.smc().nullSends(),
            c.smc().earlyLockRelease(), c.smc().lazyNulls(), c.smc().lazyDelivered(), ids(c.membership().initialView()),
            c.membership().secret() == null ? "null" :
                com.typesafe.config.ConfigUtil.quoteString(c.membership().secret()),
            c.membership().sendDuringViewChange().configName(), c.membership().joinTimeout().toMillis(),
            c.membership().runtimeSubgroups(),
            com.typesafe.config.ConfigUtil.quoteString(c.dds().logDirectory().toString()),
            c.dds().logDropBehind(), topics);
    }
}
