package io.weft.sst.shm;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.sst.TransportException;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A table file left by a crashed run is never mistaken for a live member; a live member id is never run twice. */
@Timeout(60)
class ShmStaleFileTest
{
    static final SstLayout LAYOUT = SstLayout.builder().counter("value").build();

    @TempDir
    Path dir;

    @Test
    void aFileLeftByAKilledProcessIsIgnoredByPeersAndReplacedByItsMember() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.SHM, 2);
        final Path shm = config.transport().shm().directory();
        try (Members ignored = new Members(config))
        {
            final MemberProcess holder = MemberProcess.start("holder", dir, ShmFileHolder.class, shm.toString(),
                config.group().name(), "1");
            holder.awaitOutput("created", Duration.ofSeconds(30));
            holder.kill(); // kill -9: member 1's file stays behind, saying LIVE, owned by a dead pid
            final Path stale = ShmTableFile.pathOf(shm, config.group().name(), 1);
            assertTrue(Files.exists(stale));

            final WeftConfig impatient = WeftConfig.builder().memberId(0).groupName(config.group().name())
                .members(config.group().members()).transport(TransportKind.SHM)
                .connectTimeout(Duration.ofMillis(700)).build();
            final TransportException ex = assertThrows(TransportException.class, () -> Sst.open(impatient, LAYOUT));
            assertTrue(ex.getMessage().contains("no live table file"), ex.getMessage());

            // member 1 starts again: it removes the stale file, and the group opens
            final CompletableFuture<Sst> m0 = io.weft.testkit.Async.open(() -> Sst.open(config, LAYOUT));
            try (Sst s1 = Sst.open(config.forMember(1), LAYOUT); Sst s0 = m0.get(30, TimeUnit.SECONDS))
            {
                s1.setCounter(LAYOUT.column("value"), 7);
                s1.push(LAYOUT.column("value"), s1.others());
                assertEquals(7, s0.counter(1, LAYOUT.column("value")));
            }
        }
    }

    /** A member's JVM that exits without closing its table (SIGTERM, Ctrl-C, System.exit) removes its file. */
    @Test
    void aFileIsRemovedWhenItsProcessExitsWithoutClosingIt() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.SHM, 2);
        final Path shm = config.transport().shm().directory();
        try (Members members = new Members(config))
        {
            final MemberProcess holder = members.add(MemberProcess.start("holder", dir, ShmFileHolder.class,
                shm.toString(), config.group().name(), "1"));
            holder.awaitOutput("created", Duration.ofSeconds(30));
            final Path file = ShmTableFile.pathOf(shm, config.group().name(), 1);
            assertTrue(Files.exists(file));
            holder.signal("TERM");
            holder.awaitExit(Duration.ofSeconds(30));
            assertFalse(Files.exists(file), "the file outlived its process: " + file);
        }
    }

    /**
     * A process that exited but is not reaped yet (a zombie, as a killed member is until its parent reaps it) keeps
     * its pid, and ProcessHandle takes it for alive: its file must not be taken for a live member's.
     */
    @Test
    void aFileWhoseOwnerExitedButIsNotReapedIsNotLive() throws Exception
    {
        // the shell's child exits after 0.3 s; exec'd in the shell's place, sleep never reaps it
        final Process parent = new ProcessBuilder("bash", "-c", "sleep 0.3 & echo $!; exec sleep 60").start();
        try
        {
            final long pid = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(
                parent.getInputStream())).readLine().trim());
            final ProcessHandle zombie = ProcessHandle.of(pid).orElseThrow();
            final long start = ShmTableFile.startMillis(zombie);
            io.weft.testkit.Await.until(() -> ShmTableFile.exited(pid), Duration.ofSeconds(10), "the child to exit");
            assertTrue(zombie.isAlive(), "ProcessHandle no longer takes a zombie for alive: this check is moot");
            final ShmTableFile.Owner owner = new ShmTableFile.Owner(pid, start, ShmTableFile.STATE_LIVE);
            assertFalse(owner.running());
            assertFalse(owner.isLive());
            final ShmTableFile.Owner me = new ShmTableFile.Owner(ProcessHandle.current().pid(),
                ShmTableFile.startMillis(ProcessHandle.current()), ShmTableFile.STATE_LIVE);
            assertTrue(me.running() && me.isLive());
        }
        finally
        {
            parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMemberIdAlreadyRunningIsRefused() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.SHM, 2);
        try (Members members = new Members(config))
        {
            final MemberProcess holder = members.add(MemberProcess.start("holder", dir, ShmFileHolder.class,
                config.transport().shm().directory().toString(), config.group().name(), "0"));
            holder.awaitOutput("created", Duration.ofSeconds(30));
            final TransportException ex = assertThrows(TransportException.class, () -> Sst.open(config, LAYOUT));
            assertTrue(ex.getMessage().contains("already running as pid " + holder.pid()), ex.getMessage());
        }
    }
}
