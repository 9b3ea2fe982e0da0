package io.weft.config;

import java.util.stream.Collectors;

/** Renders a {@link WeftConfig} as HOCON that {@link ConfigLoader} reads back to an equal configuration. */
public final class ConfigWriter
{
    private ConfigWriter()
    {
    }

    public static String render(final WeftConfig c)
    {
        final String members = c.group().members().stream()
            .map(m -> "      { id = %d, host = \"%s\", sst-port = %d, control-port = %d }"
                .formatted(m.id(), m.host(), m.sstPort(), m.controlPort()))
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
                tcp {
                  send-buffer = %d
                  socket-buffer = %d
                  no-delay = %b
                }
              }
              idle {
                strategy = %s
                max-spins = %d
                max-yields = %d
                max-park = %dus
              }
              failure {
                heartbeat-interval = %dms
                failure-timeout = %dms
              }
            }
            """.formatted(c.memberId(), c.group().name(), members, c.transport().kind().configName(),
            c.transport().connectTimeout().toMillis(), c.transport().shm().directory(),
            c.transport().tcp().sendBufferBytes(), c.transport().tcp().socketBufferBytes(), c.transport().tcp().noDelay(),
            c.idle().strategy().configName(), c.idle().maxSpins(), c.idle().maxYields(), c.idle().maxPark().toNanos() / 1000,
            c.failure().heartbeatInterval().toMillis(), c.failure().failureTimeout().toMillis());
    }
}
