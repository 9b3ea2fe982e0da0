package io.weft.membership;

import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.predicates.PassInvoker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A member's requests to add or remove a subgroup at run time ({@link Group#addSubgroup},
 * {@link Group#removeSubgroup}): each is checked here, multicast on the runtime channel so that every member sees
 * the requests in one order, and answered when {@link RuntimeSubgroups} installs the view that carries it out.
 */
final class SubgroupRequests
{
    private final Group group;
    private final RuntimeSubgroups runtime;
    private final Set<String> configured;
    private final Subgroup channel;

    SubgroupRequests(final Group group, final RuntimeSubgroups runtime, final Set<String> configured)
    {
        this.group = group;
        this.runtime = runtime;
        this.configured = configured;
        this.channel = new Subgroup(group, MembershipConfig.RUNTIME_CHANNEL);
    }

    /** {@return the names of the subgroups added at run time, as added} */
    List<String> addedNames()
    {
        return runtime.agreed().stream().map(sp -> sp.config().name()).toList();
    }

    /** Asks for {@code sg} to be added and waits until a view holding it is installed here (or it exists alike). */
    void add(final SubgroupConfig sg, final String properties, final Duration timeout)
        throws TimeoutException, InterruptedException
    {
        enabled("added");
        final String invalid = RuntimeSubgroups.invalid(group.config().group(), sg);
        if (invalid != null)
        {
            throw new IllegalArgumentException(invalid);
        }
        final SubgroupConfig there = configured.contains(sg.name()) ? group.config().subgroup(sg.name()) :
            runtime.find(sg.name());
        if (there != null || sg.name().equals(MembershipConfig.RUNTIME_CHANNEL))
        {
            if (sg.equals(there))
            {
                return;
            }
            throw new IllegalStateException("subgroup " + sg.name() + " exists with another configuration: " +
                (there == null ? "it is reserved" : there));
        }
        final byte[] request = RuntimeSubgroups.addRequest(new RuntimeSubgroups.Spec(sg, properties));
        if (request.length > RuntimeSubgroups.MAX_SPEC)
        {
            throw new IllegalArgumentException("the request for subgroup " + sg.name() + " takes " + request.length +
                " bytes, more than " + RuntimeSubgroups.MAX_SPEC + " (shorten its properties)");
        }
        request(sg.name(), request, runtime.await(sg), timeout);
    }

    /** Asks for the subgroup {@code name}, added at run time, to be removed and waits until a view without it. */
    void remove(final String name, final Duration timeout) throws TimeoutException, InterruptedException
    {
        enabled("removed");
        if (configured.contains(name) || name.equals(MembershipConfig.RUNTIME_CHANNEL))
        {
            throw new IllegalStateException("subgroup " + name + " is configured (weft.subgroups); only subgroups " +
                "added at run time can be removed");
        }
        if (runtime.find(name) == null)
        {
            throw new IllegalArgumentException("no subgroup named " + name + " was added at run time" +
                (runtime.wasRemoved(name) ? " (it was removed already)" : "; added: " + addedNames()));
        }
        request(name, RuntimeSubgroups.removeRequest(name), runtime.awaitRemoval(name), timeout);
    }

    private void enabled(final String what)
    {
        if (!runtime.enabled())
        {
            throw new IllegalStateException("subgroups cannot be " + what + " at run time: " +
                "weft.membership.runtime-subgroups is false (it must be true in every member's configuration)");
        }
    }

    /** Sends a request on the runtime channel and waits for its answer. */
    private void request(final String name, final byte[] request, final CompletableFuture<Void> answer,
        final Duration timeout) throws TimeoutException, InterruptedException
    {
        try
        {
            if (channel.send(request, timeout) < 0)
            {
                throw new TimeoutException("the request for subgroup " + name + " could not be sent within " + timeout);
            }
            final PassInvoker here = group.invokerHere(); // nobody else runs the passes
            if (here != null)
            {
                here.invokeUntil(answer::isDone, System.nanoTime() + timeout.toNanos());
            }
            answer.get(here != null ? 0 : timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause() instanceof RuntimeException r ? r : new IllegalStateException(ex.getCause());
        }
        finally
        {
            runtime.forget(name, answer);
        }
    }
}
