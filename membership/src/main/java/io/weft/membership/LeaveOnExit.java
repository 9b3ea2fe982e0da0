package io.weft.membership;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * A member's leave when its JVM shuts down ({@link GroupBuilder#leaveOnExit}): a shutdown hook, from the first view
 * until the member is closed, that leaves the group gracefully. Without it a member stopped by SIGTERM or Ctrl-C
 * vanishes: the others wait a failure timeout, suspect it and remove it as failed.
 */
final class LeaveOnExit
{
    private static final Logger LOG = LoggerFactory.getLogger(LeaveOnExit.class);

    private final Thread hook;

    LeaveOnExit(final Group group, final Duration timeout)
    {
        final int me = group.config().memberId();
        this.hook = Thread.ofPlatform().name("weft-leave-on-exit-" + me).unstarted(() -> leave(group, me, timeout));
    }

    void register()
    {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** After the member closed: nothing to leave at exit. During a shutdown the hook runs or ran already. */
    void unregister()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the JVM is shutting down: hooks can no longer be removed, and this one finds the member closed
        }
    }

    private static void leave(final Group group, final int me, final Duration timeout)
    {
        if (group.isClosed())
        {
            return;
        }
        try
        {
            if (group.leave(timeout))
            {
                LOG.info("member {} left its group as the JVM shuts down", me);
            }
            else
            {
                LOG.warn("member {} did not leave its group within {} as the JVM shuts down: closed abruptly, the " +
                    "others will remove it as failed", me, timeout);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("member {}: its leave as the JVM shuts down failed", me, ex);
        }
    }
}
