package io.weft.tools;

import io.weft.testkit.RegisterHistoryAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16: a concurrent history of six clients (two per member) doing SET and GET on a few keys, with kill -9 of
 * a member mid-run and its restart as a joiner (state transfer), checked for linearizability. A client whose member
 * dies moves to the next member; its write in flight then has an unknown outcome (it may or may not have applied).
 * At the end every member, the restarted one included, holds the same keys and values.
 */
@Timeout(240)
class KvLinearizabilityTest
{
    @TempDir
    Path dir;

    private static final int CLIENTS = 6;
    private static final String[] KEYS = {"k0", "k1", "k2", "k3"};

    @Test
    void aHistoryWithAKilledMemberIsLinearizable() throws Exception
    {
        try (KvProcesses kv = new KvProcesses(dir, 3, "linearizable"))
        {
            check(kv);
        }
    }

    private void check(final KvProcesses kv) throws Exception
    {
        final List<Integer> ports = kv.ports;
        final RegisterHistoryAccess history = new RegisterHistoryAccess();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicInteger moved = new AtomicInteger();
        final List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++)
        {
            final int client = c;
            clients.add(Thread.ofPlatform().name("client-" + c).start(() -> runClient(client, ports, history, running, moved)));
        }
        Thread.sleep(3000); // a history before the failure (the test's schedule, not a wait for a condition)
        kv.get(2).kill();
        Thread.sleep(2000);
        kv.start(2, true);
        kv.awaitServing(2);
        Thread.sleep(3000); // and a history after it rejoined
        running.set(false);
        for (final Thread t : clients)
        {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!t.isAlive(), t.getName() + " did not stop");
        }

        final List<String> violations = history.violations();
        System.out.printf("kv history: %d operations, %d of them with an unknown outcome, %d client moves, " +
            "violations %s%n", history.size(), history.unknown(), moved.get(), violations);
        assertTrue(violations.isEmpty(), violations.toString());
        assertTrue(history.size() > 300, "only " + history.size() + " operations recorded");
        assertTrue(moved.get() >= 2, "the clients of the killed member did not move");

        // every member, the restarted one included, ends with the same state
        final List<List<String>> states = new ArrayList<>();
        for (final int port : ports)
        {
            try (Jedis j = new Jedis("127.0.0.1", port))
            {
                final List<String> state = new ArrayList<>(j.mget(KEYS));
                state.add(String.valueOf(j.dbSize()));
                states.add(state);
            }
        }
        assertEquals(1, states.stream().distinct().count(), "members differ: " + states);
    }

    private static void runClient(final int client, final List<Integer> ports, final RegisterHistoryAccess history,
        final AtomicBoolean running, final AtomicInteger moved)
    {
        final Random random = new Random(client);
        int member = client % ports.size();
        int n = 0;
        Jedis jedis = null;
        while (running.get())
        {
            if (jedis == null)
            {
                jedis = connect(ports.get(member));
                if (jedis == null)
                {
                    member = (member + 1) % ports.size();
                    moved.incrementAndGet();
                    continue;
                }
            }
            final String key = KEYS[random.nextInt(KEYS.length)];
            final boolean write = random.nextBoolean();
            final String value = client + "-" + n++;
            final long call = System.nanoTime();
            try
            {
                if (write)
                {
                    jedis.set(key, value);
                    history.write(key, client, call, System.nanoTime(), value);
                }
                else
                {
                    final String read = jedis.get(key);
                    history.read(key, client, call, System.nanoTime(), read);
                }
            }
            catch (final JedisConnectionException | JedisDataException ex)
            {
                if (write)
                {
                    history.write(key, client, call, Long.MAX_VALUE, value); // may or may not have applied
                }
                jedis.close();
                jedis = null;
                member = (member + 1) % ports.size();
                moved.incrementAndGet();
            }
        }
        if (jedis != null)
        {
            jedis.close();
        }
    }

    private static Jedis connect(final int port)
    {
        try
        {
            final Jedis j = new Jedis("127.0.0.1", port, 10_000);
            j.ping();
            return j;
        }
        catch (final JedisConnectionException ex)
        {
            return null;
        }
    }
}
