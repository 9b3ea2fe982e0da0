package io.weft.tools;

import io.weft.config.SubgroupConfig;
import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.membership.Subgroup;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One member of a multicast run, in its own process: sends in every subgroup where it is an active sender (one
 * thread per subgroup), checks everything it delivers ({@link DeliveryCheck}), prints per-second throughput and
 * latency if asked, and at the end one hash per subgroup: members that delivered the same sequence print the same.
 * Exit codes: 0 ok, 1 a violation, 3 a member failed, 4 timed out.
 */
final class McMember
{
    /** Ends the RESULT line when {@link Group#finish} returned false. */
    static final String FINISH_FAILED =
        " (finish returned false: not every member finished, or deliveries were owed here)";

    record Options(long messages, Duration duration, int size, long delayNanos, Set<Integer> silent,
        Set<String> idleSubgroups, long callbackNanos, boolean report, boolean quiescence, Duration timeout,
        boolean invoker)
    {
    }

    private final WeftConfig config;
    private final Options options;
    private final PrintStream out;
    private final Recorder latency = new Recorder(3);
    private final Map<String, DeliveryCheck> checks = new LinkedHashMap<>();
    private final AtomicBoolean memberFailed = new AtomicBoolean();

    McMember(final WeftConfig config, final Options options, final PrintStream out)
    {
        this.config = config;
        this.options = options;
        this.out = out;
    }

    int run() throws InterruptedException
    {
        final int me = config.memberId();
        final GroupBuilder builder = Group.builder(config)
            .onMinority(reason -> say("member %d: MINORITY: %s%n", me, reason))
            .onView(v ->
            {
                say("member %d: VIEW %d members=%s%n", me, v.id(), v.members());
                checks.values().forEach(c -> c.onView(v.members()));
            })
            .onMemberFailure((id, reason) ->
        {
            memberFailed.set(true);
            say("member %d: member %d failed: %s%n", me, id, reason);
        });
        for (final SubgroupConfig sg : config.subgroups())
        {
            if (!sg.memberIds(config.group()).contains(me))
            {
                continue;
            }
            final int[] active = options.idleSubgroups().contains(sg.name()) ? new int[0]
                : sg.senderIds(config.group()).stream().filter(id -> !options.silent().contains(id))
                .mapToInt(Integer::intValue).toArray();
            final DeliveryCheck check = new DeliveryCheck(sg.name(), me, active, out, latency, options.callbackNanos());
            checks.put(sg.name(), check);
            builder.onDelivery(sg.name(), check::onMessage);
        }
        final long start = System.nanoTime();
        final Group group = (options.invoker() ? builder.useInvoker() : builder).open();
        say("member %d: group open (%s, %d members, subgroups %s, %s%s)%n", me,
            config.transport().kind().configName(), config.group().size(), checks.keySet(), config.smc().describe(),
            options.invoker() ? ", invoker mode" : "");
        if (options.invoker())
        {
            group.invoker().invoke(); // this thread owns the passes before the senders' waits could take them
        }
        final List<Thread> senders = new ArrayList<>();
        for (final Subgroup s : group.subgroups().values())
        {
            if (s.isSender() && !options.silent().contains(me) && !options.idleSubgroups().contains(s.name()))
            {
                senders.add(Thread.ofPlatform().name("sender-" + s.name()).start(() -> sendAll(s)));
            }
        }
        final Thread reporter = options.report() ? Thread.ofPlatform().daemon(true).start(() -> report(group)) : null;
        final long deadline = start + options.timeout().toNanos();
        if (options.invoker())
        {
            // this thread runs the passes: the senders' waits for a slot end when it frees one
            group.invoker().invokeUntil(this::allComplete, deadline);
        }
        while (!allComplete() && System.nanoTime() < deadline)
        {
            Thread.sleep(2);
        }
        for (final Thread t : senders)
        {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        if (reporter != null)
        {
            reporter.interrupt();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        final boolean complete = allComplete();
        long violations = 0;
        for (final DeliveryCheck c : checks.values())
        {
            if (complete)
            {
                c.checkCounts(options.messages());
            }
            final Subgroup s = group.subgroup(c.subgroup());
            say("member %d: subgroup %s: HASH %016x delivered=%d nulls=%d batches send[%s] receive[%s] delivery[%s]%n",
                me, c.subgroup(), c.hash(), c.delivered(), s.nullsSent(), s.sendBatches().describe(),
                s.receiveBatches().describe(), s.deliveryBatches().describe());
            violations += c.violations();
        }
        if (complete && options.quiescence())
        {
            // every sender has stopped: nulls must stop too (Spindle's quiescence property)
            final long before = group.subgroups().values().stream().mapToLong(Subgroup::nullsSent).sum();
            if (options.invoker())
            {
                group.invoker().invokeUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
            }
            else
            {
                Thread.sleep(1000);
            }
            final long after = group.subgroups().values().stream().mapToLong(Subgroup::nullsSent).sum();
            say("member %d: %s: nulls %d, one second later %d%n", me, before == after ? "QUIESCENT" :
                "NOT QUIESCENT", before, after);
        }
        final Histogram h = latency.getIntervalHistogram();
        say("member %d: writes=%d bytes=%d predicate-busy=%.3fs latency-us p50=%d p99=%d%n", me,
            group.writesPosted(), group.bytesPushed(), group.predicateBusyNanos() / 1e9,
            h.getValueAtPercentile(50), h.getValueAtPercentile(99));
        final boolean left = group.finish(Duration.ofSeconds(30));
        if (!complete)
        {
            say("member %d: TIMEOUT after %.1fs: not every end marker was delivered%n", me, seconds);
            return SstMember.EXIT_TIMEOUT;
        }
        say("member %d: RESULT %s violations=%d in %.2fs%s%n", me, violations == 0 ? "ok" : "VIOLATED", violations,
            seconds, left ? "" : FINISH_FAILED);
        return violations > 0 ? SstMember.EXIT_VIOLATION : memberFailed.get() ? SstMember.EXIT_MEMBER_FAILED :
            SstMember.EXIT_OK;
    }

    private boolean allComplete()
    {
        return checks.values().stream().allMatch(DeliveryCheck::isComplete);
    }

    private void sendAll(final Subgroup s)
    {
        final int me = config.memberId();
        final int size = Math.min(Math.max(1, options.size()), s.maxPayload());
        final byte[] buf = new byte[size];
        final long end = options.messages() < 0 ? System.nanoTime() + options.duration().toNanos() : Long.MAX_VALUE;
        long counter = 0;
        while (options.messages() < 0 ? System.nanoTime() < end : counter < options.messages())
        {
            DeliveryCheck.fill(buf, size, me, counter, DeliveryCheck.DATA);
            if (!sendOne(s, buf, size))
            {
                return;
            }
            counter++;
            AppWork.busy(options.delayNanos());
        }
        DeliveryCheck.fill(buf, size, me, counter, DeliveryCheck.END);
        sendOne(s, buf, size);
    }

    private boolean sendOne(final Subgroup s, final byte[] buf, final int size)
    {
        if (s.send(buf, 0, size, options.timeout()) < 0)
        {
            say("member %d: subgroup %s: back-pressured until the timeout%n", config.memberId(), s.name());
            return false;
        }
        return true;
    }

    private void report(final Group group)
    {
        long lastCount = 0;
        long lastBytes = 0;
        long lastNulls = 0;
        int second = 0;
        try
        {
            while (!Thread.currentThread().isInterrupted())
            {
                Thread.sleep(1000);
                second++;
                final long count = checks.values().stream().mapToLong(DeliveryCheck::delivered).sum();
                final long bytes = checks.values().stream().mapToLong(DeliveryCheck::deliveredBytes).sum();
                final long nulls = group.subgroups().values().stream().mapToLong(Subgroup::nullsSent).sum();
                final Histogram h = latency.getIntervalHistogram();
                say("member %d: t=%2ds delivered %,9d msg/s %8.2f MB/s  latency p50 %,6d us p99 %,7d us  nulls %d%n",
                    config.memberId(), second, count - lastCount, (bytes - lastBytes) / 1e6,
                    h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50),
                    h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99), nulls - lastNulls);
                lastCount = count;
                lastBytes = bytes;
                lastNulls = nulls;
            }
        }
        catch (final InterruptedException ignored)
        {
            // done
        }
    }

    static Set<Integer> parseIds(final String ids)
    {
        if (ids == null || ids.isBlank())
        {
            return Set.of();
        }
        return Set.copyOf(Arrays.stream(ids.split(",")).map(String::trim).map(Integer::parseInt).toList());
    }

    /**
     * Prints one whole line with a single write: tests read this output from a file that the logger (stderr) writes
     * to as well, and a line formatted piece by piece could be split by a log line.
     */
    private void say(final String format, final Object... args)
    {
        out.print(String.format(java.util.Locale.ROOT, format, args));
        out.flush();
    }
}
