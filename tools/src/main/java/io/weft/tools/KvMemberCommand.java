package io.weft.tools;

import io.weft.config.WeftConfig;
import io.weft.examples.kv.KvReplica;
import io.weft.examples.kv.KvServer;
import io.weft.membership.Group;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code weft kv-member}: one member of the replicated key-value store: a group member (subgroup {@code kv}) and a
 * Redis protocol server on {@code --port}. Runs until terminated; SIGTERM leaves the group gracefully.
 */
@Command(name = "kv-member", description = "One member of the replicated key-value store (Redis protocol).")
final class KvMemberCommand implements Callable<Integer>
{
    private static final Duration DOWN_GRACE = Duration.ofSeconds(30);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(2);

    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--port", required = true, description = "The Redis protocol port on the member's host (0: any).")
    int port;

    @Option(names = "--join", description = "Join a running group (after a restart) instead of opening view 0.")
    boolean join;

    @Option(names = "--log", description = "Keep the store durable in a log in this directory (replayed on start; " +
        "a cold start of the whole group recovers what any member logged).")
    Path log;

    @Option(names = "--dir", description = "Where SAVE and BGSAVE write dump.rdb, Redis's dir (default: the --log " +
        "directory, else the working directory).")
    Path dir;

    @Mixin
    KvReplicaOptions store = new KvReplicaOptions();

    @Override
    public Integer call() throws Exception
    {
        final String problem = store.problem();
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        final WeftConfig cfg = member.load();
        if (cfg.subgroups().stream().noneMatch(s -> s.name().equals(KvReplica.SUBGROUP)))
        {
            System.err.println("weft: " + member.file + " has no subgroup named '" + KvReplica.SUBGROUP +
                "' (weft.subgroups)");
            return Weft.EXIT_CONFIG;
        }
        final KvReplica replica;
        try
        {
            replica = new KvReplica(store.reads.equals("local"), log, store.compactAfter);
            if (store.maxMemory > 0)
            {
                replica.maxMemory(store.maxMemory);
            }
            replica.slowLog(store.slowlogSlowerThan, store.slowlogMaxLen).latencyMonitor(store.latencyMonitorThreshold);
            if (dir != null)
            {
                replica.rdbDirectory(dir);
            }
        }
        catch (final IllegalStateException | java.io.UncheckedIOException ex) // a log it cannot open: no stack trace
        {
            return Weft.refuse(ex.getMessage() + (ex instanceof java.io.UncheckedIOException ? " (" + ex.getCause() +
                ")" : ""));
        }
        if (log != null)
        {
            System.out.printf("member %d: log %s replayed: write position %d%n", member.id, log, replica.applied());
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final var builder = replica.attach(Group.builder(cfg), member.id)
            .onView(v -> System.out.printf("member %d: VIEW %d members=%s%n", member.id, v.id(), v.members()));
        final Group group = join ? builder.join() : builder.open(); // a refusal: Weft's handler prints it, exit 2
        replica.start(group, !join);
        if (!replica.awaitServing(RECOVERY_TIMEOUT))
        {
            System.out.printf("member %d: FAILED: %s%n", member.id, replica.down() != null ? replica.down() :
                "the group did not recover within " + RECOVERY_TIMEOUT.toSeconds() + " s (a catch-up longer than " +
                "that, or a member stuck and not removed?)");
            replica.close();
            return SstMember.EXIT_MEMBER_FAILED;
        }
        final String host = cfg.group().members().get(cfg.group().rankOf(member.id)).host();
        final KvServer server = new KvServer(replica, host, port, store.user());
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() ->
        {
            try
            {
                server.close();
                if (!group.isClosed())
                {
                    group.leave(Duration.ofSeconds(5));
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("member " + member.id + ": shutting down: " + ex);
            }
            finally
            {
                replica.close(); // also after a failed leave: the transport's files and sockets go with it
                stopped.countDown();
            }
        }));
        System.out.printf("member %d: kv serving on %s:%d (reads %s, write position %d)%n", member.id, host,
            server.port(), store.reads, replica.applied());
        while (!stopped.await(1, java.util.concurrent.TimeUnit.SECONDS))
        {
            final String down = replica.down();
            if (down != null)
            {
                // clients of this member keep getting the reason as an error for a while, then it exits
                System.out.printf("member %d: STOPPED: %s; answering CLUSTERDOWN for %d s%n", member.id, down,
                    DOWN_GRACE.toSeconds());
                stopped.await(DOWN_GRACE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                server.close();
                replica.close();
                return SstMember.EXIT_MEMBER_FAILED;
            }
        }
        return 0;
    }
}
