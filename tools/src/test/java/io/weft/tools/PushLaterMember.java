package io.weft.tools;

import io.weft.config.ConfigLoader;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.testkit.ParentWatch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test member process for {@link PredicateWakeTest}: opens the table, waits for a go file, pushes 42, and exits once
 * member 0 echoed it (which only happens if the push woke member 0's parked predicate thread).
 */
public final class PushLaterMember
{
    public static void main(final String[] args) throws Exception
    {
        ParentWatch.install(); // ends with the test JVM that started it, also after kill -9
        final WeftConfig config = ConfigLoader.load(Path.of(args[0]), Map.of("weft.member.id", Integer.parseInt(args[1])));
        final Path go = Path.of(args[2]);
        try (Sst sst = Sst.open(config, PredicateWakeTest.LAYOUT))
        {
            System.out.println("open");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(go))
            {
                check(deadline, "go file");
                Thread.sleep(10);
            }
            sst.setCounter(PredicateWakeTest.VALUE, 42);
            sst.push(PredicateWakeTest.VALUE, sst.others());
            while (sst.counter(0, PredicateWakeTest.ECHO) != 42)
            {
                check(deadline, "echo");
                Thread.sleep(1);
            }
            System.out.println("echoed");
        }
    }

    private static void check(final long deadline, final String what)
    {
        if (System.nanoTime() > deadline)
        {
            System.out.println("timed out waiting for " + what);
            System.exit(1);
        }
    }
}
