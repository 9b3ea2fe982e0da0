package io.weft.tools;

import io.weft.config.WeftConfig;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.membership.StateTransfer;
import io.weft.membership.Subgroup;
import io.weft.membership.View;
import io.weft.membership.ViewChangeException;
import io.weft.smc.Message;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A member for virtual-synchrony checks ({@code vs-member}, started by the membership tests and {@code chaos}).
 * It sends numbered messages ({@code sender id, incarnation (pid), counter}) at a steady rate, logs every delivery
 * with its view to {@code <dir>/deliveries-<id>-<pid>.log}, and keeps a state (messages delivered, hash chain of
 * the sequence) that joiners receive by state transfer, so that at the end every member's state must be equal.
 * Commands arrive as a file {@code <dir>/cmd-<id>} holding {@code end} or {@code end MS} (stop sending, finish
 * together, waiting 30 s or MS for the others) or
 * {@code leave} (stop sending, leave gracefully), {@code stall-view MS} (the membership thread sleeps that long in
 * the view callback of the next view change, then goes on) or {@code stall-trim MS} (deliveries slow down to 2 ms
 * each, so that a backlog builds, and the thread delivering the trim sleeps that long in its first message: the
 * membership thread, or in invoker mode the owner, to which the membership thread hands the trim) or
 * {@code halt-in-trim N} (the same backlog, then the process halts as kill -9 would, its log flushed, after delivering
 * N messages of the next trim) or {@code halt-on-added} (it halts the same way when told of a subgroup added: after
 * agreeing to the view that holds it, before opening that view's table) or {@code add-subgroup NAME} (adds an
 * all-member subgroup at run time; every member prints SUBGROUP-ADDED when told of one). With
 * {@code --callback-send}, its delivery callback also tries a send that waits (which a protocol thread must refuse at
 * once) and prints the outcome once. With {@code --leave-on-exit} a SIGTERM leaves the group gracefully
 * ({@code GroupBuilder.leaveOnExit}); the sender, refused, prints what it sent.
 */
final class VsMember
{
    static final int EXIT_STOPPED = 3;
    /** Lines this program prints that its drivers (tests, chaos) read. Groups: member, view id, members, time. */
    static final java.util.regex.Pattern VIEW_LINE =
        java.util.regex.Pattern.compile("member (\\d+): VIEW (\\d+) members=\\[([^]]*)].* at=(\\d+)");
    /** Groups: member, incarnation, sends that returned success. */
    static final java.util.regex.Pattern SENT_LINE =
        java.util.regex.Pattern.compile("member (\\d+): SENT-OK incarnation=(\\d+) count=(\\d+)");
    /** Groups: messages delivered, hash chain. */
    static final java.util.regex.Pattern FINAL_LINE = java.util.regex.Pattern.compile("FINAL delivered=(\\d+) " +
        "hash=(\\S+)");
    /** Printed every {@link #PROGRESS_EVERY} deliveries, so that drivers wait for traffic rather than sleep. */
    static final java.util.regex.Pattern PROGRESS_LINE = java.util.regex.Pattern.compile("DELIVERED (\\d+) in view");
    static final int PROGRESS_EVERY = 500;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    record Options(boolean join, long rate, int size, Path dir, Duration timeout, boolean callbackSend, boolean invoker,
        boolean leaveOnExit)
    {
    }

    private final WeftConfig config;
    private final Options options;
    private final PrintStream out;
    private final int me;
    private final int incarnation = (int)ProcessHandle.current().pid();
    private final BufferedWriter log;
    private final byte[] payload;
    private volatile long viewId = -1;
    private volatile boolean sending = true;
    private volatile Subgroup callbackTarget;
    /** Invoker mode: every delivery, the trim's included, must run on its owner. */
    private volatile io.weft.predicates.PassInvoker invoker;
    private boolean offOwnerTold;
    private volatile long stallNextViewMillis;
    private volatile long stallTrimMillis;
    private volatile long haltInTrim; // > 0: halt (as kill -9 would) after delivering that many trim messages
    private volatile boolean haltOnAdded; // halt when told of a subgroup added: agreed to a view it never opens
    private final java.util.concurrent.atomic.AtomicLong burst = new java.util.concurrent.atomic.AtomicLong();
    private boolean callbackSendTold;
    private long delivered;
    private long hash = 0xcbf29ce484222325L;
    private long sentOk;

    VsMember(final WeftConfig config, final Options options, final PrintStream out) throws IOException
    {
        this.config = config;
        this.options = options;
        this.out = out;
        this.me = config.memberId();
        this.log = Files.newBufferedWriter(options.dir().resolve("deliveries-" + me + "-" + incarnation + ".log"));
        this.payload = new byte[Math.max(16, options.size())];
    }

    int run() throws Exception
    {
        final String subgroup = config.subgroups().getFirst().name();
        final GroupBuilder builder = Group.builder(config)
            .onDelivery(subgroup, this::onMessage)
            .onView(this::onView)
            .onMinority(reason -> say("member %d: MINORITY: %s", me, reason))
            .onSubgroupAdded((sg, properties) ->
            {
                if (haltOnAdded)
                {
                    halt("on being told of subgroup " + sg.name() + ", before the view that holds it opens here");
                }
                say("member %d: SUBGROUP-ADDED %s", me, sg.name());
                return null;
            })
            .onSubgroupRemoved(name -> say("member %d: SUBGROUP-REMOVED %s", me, name))
            .stateTransfer(new StateTransfer()
            {
                @Override
                public byte[] snapshot()
                {
                    return ByteBuffer.allocate(16).putLong(delivered).putLong(hash).array();
                }

                @Override
                public void install(final byte[] state)
                {
                    final ByteBuffer b = ByteBuffer.wrap(state);
                    delivered = b.getLong();
                    hash = b.getLong();
                    say("member %d: STATE installed delivered=%d hash=%016x", me, delivered, hash);
                }
            });
        if (options.invoker())
        {
            builder.useInvoker();
        }
        if (options.leaveOnExit())
        {
            builder.leaveOnExit(Duration.ofSeconds(30));
        }
        final Group group = options.join() ? builder.join() : builder.open();
        final Thread flusher = Thread.ofPlatform().daemon(true).start(this::flushLoop);
        final Subgroup s = group.subgroup(subgroup);
        callbackTarget = s;
        if (options.invoker())
        {
            group.invoker().invoke(); // this thread owns the passes before the sender's waits could take them
            invoker = group.invoker();
        }
        final Thread sender = Thread.ofPlatform().name("vs-sender").start(() -> send(group, s));
        if (options.leaveOnExit())
        {
            // the JVM halts once its hooks end: this one keeps it until the refused sender has said what it sent
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> awaitEnd(sender)));
        }
        say("member %d: READY in view %d%s", me, viewId, options.invoker() ? " (invoker mode)" : "");
        final long deadline = System.nanoTime() + options.timeout().toNanos();
        final Path cmd = CommandFile.of(options.dir(), me);
        try
        {
            while (System.nanoTime() < deadline)
            {
                if (group.minorityReason() != null)
                {
                    stopSending(sender);
                    say("member %d: STOPPED %s", me, group.minorityReason());
                    group.close();
                    return EXIT_STOPPED;
                }
                final String command = CommandFile.take(cmd);
                if (command != null)
                {
                    if (command.startsWith("stall-trim "))
                    {
                        stallTrimMillis = Long.parseLong(command.substring("stall-trim ".length()));
                        say("member %d: STALL armed: %d ms in the first message of the next trim", me, stallTrimMillis);
                        continue;
                    }
                    if (command.startsWith("stall-owner "))
                    {
                        final long millis = Long.parseLong(command.substring("stall-owner ".length()));
                        say("member %d: STALL of the invoker's owner for %d ms: no invoke() meanwhile", me, millis);
                        Thread.sleep(millis); // in invoker mode nothing of this member moves, the trim included
                        continue;
                    }
                    if (command.startsWith("halt-in-trim "))
                    {
                        haltInTrim = Long.parseLong(command.substring("halt-in-trim ".length()));
                        say("member %d: HALT armed: after %d messages of the next trim", me, haltInTrim);
                        continue;
                    }
                    if (command.equals("halt-on-added"))
                    {
                        haltOnAdded = true;
                        say("member %d: HALT armed: when told of a subgroup added", me);
                        continue;
                    }
                    if (command.startsWith("burst "))
                    {
                        burst.addAndGet(Long.parseLong(command.substring("burst ".length())));
                        say("member %d: BURST of %s messages as fast as the window allows", me,
                            command.substring("burst ".length()));
                        continue;
                    }
                    if (command.startsWith("add-subgroup "))
                    {
                        final String name = command.substring("add-subgroup ".length());
                        Thread.ofVirtual().start(() -> addSubgroup(group, name));
                        continue;
                    }
                    if (command.startsWith("remove-subgroup "))
                    {
                        final String name = command.substring("remove-subgroup ".length());
                        Thread.ofVirtual().start(() -> removeSubgroup(group, name));
                        continue;
                    }
                    if (command.startsWith("stall-view "))
                    {
                        stallNextViewMillis = Long.parseLong(command.substring("stall-view ".length()));
                        say("member %d: STALL armed: %d ms in the next view callback", me, stallNextViewMillis);
                        continue;
                    }
                    stopSending(sender);
                    say("member %d: SENT-OK incarnation=%d count=%d", me, incarnation, sentOk);
                    final Duration within = command.startsWith("end ") ?
                        Duration.ofMillis(Long.parseLong(command.substring("end ".length()))) : Duration.ofSeconds(30);
                    final boolean ok = "leave".equals(command) ? group.leave(within) : group.finish(within);
                    synchronized (log)
                    {
                        log.flush();
                    }
                    say("member %d: %s %s FINAL delivered=%d hash=%016x", me, "leave".equals(command) ? "LEFT" :
                        "ENDED", ok ? "ok" : "incomplete", delivered, hash);
                    return ok ? 0 : SstMember.EXIT_TIMEOUT;
                }
                if (options.invoker())
                {
                    group.invoker().invokeUntil(System.nanoTime() + 20_000_000L); // the passes run here
                }
                else
                {
                    Thread.sleep(20);
                }
            }
            say("member %d: TIMEOUT after %s", me, options.timeout());
            return SstMember.EXIT_TIMEOUT;
        }
        finally
        {
            sending = false;
            group.close();
            flusher.interrupt();
            synchronized (log)
            {
                log.close();
            }
        }
    }

    /** Halts as kill -9 would (no shutdown hooks, no goodbye to the group), with what it delivered on disk. */
    private void halt(final String when)
    {
        synchronized (log)
        {
            try
            {
                log.flush(); // the page cache outlives the process
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        say("member %d: HALT %s at=%d", me, when, System.currentTimeMillis());
        Runtime.getRuntime().halt(137);
    }

    private void addSubgroup(final Group group, final String name)
    {
        try
        {
            group.addSubgroup(io.weft.config.SubgroupConfig.allMembers(name, 16, 64), "", Duration.ofSeconds(30));
            say("member %d: ADDED %s in view %d", me, name, group.view().id());
        }
        catch (final Exception ex)
        {
            say("member %d: ADD-FAILED %s: %s", me, name, ex.getMessage());
        }
    }

    private void removeSubgroup(final Group group, final String name)
    {
        try
        {
            group.removeSubgroup(name, Duration.ofSeconds(30));
            say("member %d: REMOVED %s in view %d", me, name, group.view().id());
        }
        catch (final Exception ex)
        {
            say("member %d: REMOVE-FAILED %s: %s", me, name, ex.getMessage());
        }
    }

    private static void awaitEnd(final Thread sender)
    {
        try
        {
            sender.join(Duration.ofSeconds(30));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void stopSending(final Thread sender) throws InterruptedException
    {
        sending = false;
        sender.join();
    }

    /**
     * The length of a sender's message {@code counter}: 16 to {@code max} bytes, so that the rings hold records of
     * every length and wrap at every point; a delivery of another length is logged as a corruption.
     */
    static int lengthOf(final int sender, final long counter, final int max)
    {
        return 16 + (int)((counter * 37 + sender * 11) % (max - 15));
    }

    private void send(final Group group, final Subgroup s)
    {
        final ByteBuffer b = ByteBuffer.wrap(payload);
        final long period = options.rate() > 0 ? 1_000_000_000L / options.rate() : 0;
        long next = System.nanoTime();
        long counter = 0;
        while (sending)
        {
            b.putInt(0, me).putInt(4, incarnation).putLong(8, counter);
            try
            {
                if (s.send(payload, 0, lengthOf(me, counter, payload.length), Duration.ofMillis(100)) >= 0)
                {
                    sentOk = ++counter;
                }
            }
            catch (final ViewChangeException ex)
            {
                LockSupport.parkNanos(1_000_000);
                continue;
            }
            catch (final IllegalStateException ex)
            {
                if (ex.getMessage() != null && ex.getMessage().contains("is leaving"))
                {
                    say("member %d: SENT-OK incarnation=%d count=%d", me, incarnation, sentOk); // leaving on exit
                }
                else if (group.minorityReason() == null && !group.isClosed())
                {
                    say("member %d: send failed: %s", me, ex.getMessage());
                }
                return;
            }
            if (burst.get() > 0)
            {
                burst.decrementAndGet(); // only this thread takes from the burst
                next = System.nanoTime();
            }
            else if (period > 0)
            {
                next += period;
                final long wait = next - System.nanoTime();
                if (wait > 0)
                {
                    LockSupport.parkNanos(wait);
                }
                else if (wait < -100_000_000L)
                {
                    next = System.nanoTime(); // fell behind (a view change): do not burst
                }
            }
        }
    }

    private void onMessage(final Message m)
    {
        final long stallTrim = stallTrimMillis;
        final String role = io.weft.predicates.ProtocolThread.role();
        final boolean inTrim = role != null && role.startsWith("membership"); // the thread, or its work on the owner
        if ((stallTrim > 0 || haltInTrim > 0) && !inTrim)
        {
            LockSupport.parkNanos(2_000_000L); // a backlog of stable messages builds for the trim to deliver
        }
        if (stallTrim > 0 && inTrim)
        {
            stallTrimMillis = 0;
            say("member %d: STALL of the membership thread for %d ms in a trim delivery", me, stallTrim);
            stall(stallTrim);
        }
        final io.weft.predicates.PassInvoker inv = invoker;
        if (inv != null && inv.owner() != Thread.currentThread() && !offOwnerTold)
        {
            offOwnerTold = true;
            say("member %d: OFF-OWNER delivery on thread %s in view %d, not on the invoker's owner %s", me,
                Thread.currentThread().getName(), viewId, inv.owner().getName());
        }
        final int sender = m.segment().get(INT, m.offset());
        final int inc = m.segment().get(INT, m.offset() + 4);
        final long counter = m.segment().get(LONG, m.offset() + 8);
        if (++delivered % PROGRESS_EVERY == 0)
        {
            say("member %d: DELIVERED %d in view %d", me, delivered, viewId);
        }
        hash = (hash ^ (((long)sender << 32) | (inc & 0xffffffffL))) * 0x100000001b3L;
        hash = (hash ^ counter) * 0x100000001b3L;
        final boolean intact = m.length() == lengthOf(sender, counter, payload.length);
        try
        {
            synchronized (log)
            {
                log.write(viewId + " " + sender + " " + inc + " " + counter + (intact ? "\n" : " length " + m.length() +
                    "\n"));
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        if (haltInTrim > 0 && inTrim && --haltInTrim == 0)
        {
            halt("in the middle of delivering the trim of view " + viewId);
        }
        if (options.callbackSend())
        {
            callbackSend();
        }
    }

    /** A send that waits, from the delivery callback: refused at once (it would wait for this very thread). */
    private void callbackSend()
    {
        final Subgroup s = callbackTarget;
        if (s == null)
        {
            return;
        }
        String outcome;
        try
        {
            outcome = "accepted index " + s.send(new byte[16], Duration.ofSeconds(30));
        }
        catch (final IllegalStateException ex)
        {
            outcome = "refused: " + ex.getMessage();
        }
        if (!callbackSendTold)
        {
            callbackSendTold = true;
            say("member %d: CALLBACK-SEND %s", me, outcome);
        }
    }

    /** Holds the calling thread for the whole time: the protocol unparks its threads, so one park is not enough. */
    private static void stall(final long millis)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime())
        {
            LockSupport.parkNanos(left);
        }
    }

    private void onView(final View view)
    {
        final long stall = stallNextViewMillis;
        if (stall > 0 && view.id() > 0)
        {
            stallNextViewMillis = 0;
            say("member %d: STALL of the membership thread for %d ms in the callback of view %d", me, stall, view.id());
            stall(stall);
        }
        viewId = view.id();
        try
        {
            synchronized (log)
            {
                log.write("V " + view.id() + " " + view.members() + "\n");
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        say("member %d: VIEW %d members=%s joined=%s left=%s failed=%s at=%d", me, view.id(), view.members(),
            view.joined(), view.left(), view.failed(), System.currentTimeMillis());
    }

    private void flushLoop()
    {
        while (!Thread.currentThread().isInterrupted())
        {
            try
            {
                Thread.sleep(100);
                synchronized (log)
                {
                    log.flush();
                }
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            catch (final IOException ex)
            {
                return; // closed
            }
        }
    }

    private void say(final String format, final Object... args)
    {
        final String line = String.format(format, args) + System.lineSeparator();
        synchronized (out)
        {
            out.print(line);
            out.flush();
        }
    }
}
