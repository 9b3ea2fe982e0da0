package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.GroupConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.WeftConfig;
import io.weft.config.WeftConfigException;
import io.weft.smc.BatchHandler;
import io.weft.smc.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Subgroups added and removed while the group runs. A request travels as a message of the ordered subgroup
 * {@value MembershipConfig#RUNTIME_CHANNEL}, so every member sees the requests in the same order; a new one makes
 * the leader propose a view change ({@link ChangeList#RECONFIGURED}), and every survivor, having delivered the same
 * messages of the view by its end, adds (or drops) the same subgroups in the next view. Joiners receive the list
 * with their view. Decisions on a request (new, the same as one already there, or a conflicting one) depend only on
 * the delivery order, so every member makes the same.
 */
final class RuntimeSubgroups
{
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeSubgroups.class);
    /** Largest encoded request; also the channel's max-payload. */
    static final int MAX_SPEC = 4096;
    private static final int CHANNEL_WINDOW = 8;
    private static final byte VERSION = 1;
    /** A request's first byte: what it asks for. */
    private static final byte ADD = 1;
    private static final byte REMOVE = 2;

    /** One added subgroup: as its creator asked, with what it attached for the application. */
    record Spec(SubgroupConfig config, String properties)
    {
        byte[] encode()
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes))
            {
                out.writeByte(VERSION);
                out.writeUTF(config.name());
                for (final List<Integer> ids : List.of(config.members(), config.senders()))
                {
                    out.writeShort(ids.size());
                    for (final int id : ids)
                    {
                        out.writeInt(id);
                    }
                }
                out.writeInt(config.window());
                out.writeInt(config.maxPayload());
                out.writeByte(config.mode().ordinal());
                out.writeUTF(properties);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
            return bytes.toByteArray();
        }

        static Spec decode(final DataInputStream in) throws IOException
        {
            final int version = in.readByte();
            if (version != VERSION)
            {
                throw new IOException("runtime subgroup request of version " + version + ", this member reads " +
                    VERSION);
            }
            final String name = in.readUTF();
            final List<List<Integer>> lists = new ArrayList<>();
            for (int l = 0; l < 2; l++)
            {
                final int n = in.readShort();
                if (n < 0 || n > GroupConfig.MAX_MEMBERS)
                {
                    throw new IOException("a list of " + n + " members");
                }
                final List<Integer> ids = new ArrayList<>();
                for (int i = 0; i < n; i++)
                {
                    ids.add(in.readInt());
                }
                lists.add(ids);
            }
            final int window = in.readInt();
            final int maxPayload = in.readInt();
            final int mode = in.readByte();
            if (mode < 0 || mode >= DeliveryMode.values().length)
            {
                throw new IOException("delivery mode " + mode);
            }
            final String properties = in.readUTF();
            try
            {
                return new Spec(new SubgroupConfig(name, lists.get(0), lists.get(1), window, maxPayload,
                    DeliveryMode.values()[mode]), properties);
            }
            catch (final WeftConfigException ex)
            {
                throw new IOException(ex.getMessage(), ex);
            }
        }
    }

    private final boolean enabled;
    private final List<SubgroupAddedListener> listeners;
    private final List<SubgroupRemovedListener> removedListeners;
    private final List<Spec> agreed = new ArrayList<>();            // guarded by this: in every view from the next on
    private final List<Spec> requested = new ArrayList<>();         // guarded by this: delivered in this view, new
    private final List<String> removals = new ArrayList<>();        // guarded by this: delivered in this view, new
    private final Set<String> removed = new HashSet<>();            // guarded by this: removed, not added again
    private final Map<String, BatchHandler> handlers = new HashMap<>(); // guarded by this
    private final Map<String, Request> waiting = new HashMap<>(); // guarded by this: this member's requests by name
    private final Map<String, CompletableFuture<Void>> leaving = new HashMap<>(); // guarded by this: my removals

    /** A request of this member, answered once the subgroup is in a view here (or refused). */
    private record Request(SubgroupConfig config, CompletableFuture<Void> answer)
    {
        /** Answers with the subgroup the group agreed on under the name: the one asked for, or a refusal. */
        void settle(final SubgroupConfig agreed)
        {
            if (agreed.equals(config))
            {
                answer.complete(null);
            }
            else
            {
                answer.completeExceptionally(new IllegalStateException("subgroup " + config.name() + " exists with " +
                    "another configuration: " + agreed));
            }
        }
    }

    RuntimeSubgroups(final WeftConfig config, final List<SubgroupAddedListener> listeners,
        final List<SubgroupRemovedListener> removedListeners)
    {
        this.enabled = config.membership().runtimeSubgroups();
        this.listeners = listeners;
        this.removedListeners = new ArrayList<>(removedListeners);
    }

    /** Told after the application's listeners (before the membership thread starts): the group's own bookkeeping. */
    void afterRemoval(final SubgroupRemovedListener listener)
    {
        removedListeners.add(listener);
    }

    /** The request that adds {@code spec}. */
    static byte[] addRequest(final Spec spec)
    {
        final byte[] body = spec.encode();
        final byte[] request = new byte[body.length + 1];
        request[0] = ADD;
        System.arraycopy(body, 0, request, 1, body.length);
        return request;
    }

    /** The request that removes the subgroup {@code name}. */
    static byte[] removeRequest(final String name)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeByte(REMOVE);
            out.writeByte(VERSION);
            out.writeUTF(name);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return bytes.toByteArray();
    }

    boolean enabled()
    {
        return enabled;
    }

    /** The channel's own configuration: every member sends, ordered, a small ring. */
    static SubgroupConfig channel()
    {
        return new SubgroupConfig(MembershipConfig.RUNTIME_CHANNEL, List.of(), List.of(), CHANNEL_WINDOW, MAX_SPEC,
            DeliveryMode.ORDERED);
    }

    /** The configuration views are built from: the configured subgroups, the channel, then every agreed addition. */
    synchronized WeftConfig base(final WeftConfig config)
    {
        if (!enabled)
        {
            return config;
        }
        final List<SubgroupConfig> all = new ArrayList<>(config.subgroups());
        all.add(channel());
        agreed.forEach(s -> all.add(s.config()));
        return new WeftConfig(config.memberId(), config.group(), config.transport(), config.idle(), config.failure(),
            all, config.smc(), config.membership(), config.dds());
    }

    /** The configuration of an added subgroup, or null. */
    synchronized SubgroupConfig find(final String name)
    {
        return named(agreed, name);
    }

    /** Whether {@code name} was added at run time and then removed (and not added again). */
    synchronized boolean wasRemoved(final String name)
    {
        return removed.contains(name);
    }

    private static SubgroupConfig named(final List<Spec> specs, final String name)
    {
        for (final Spec s : specs)
        {
            if (s.config().name().equals(name))
            {
                return s.config();
            }
        }
        return null;
    }

    synchronized List<Spec> agreed()
    {
        return List.copyOf(agreed);
    }

    synchronized BatchHandler handler(final String name)
    {
        return handlers.get(name);
    }

    /**
     * A request of this member: completes once a view holding the subgroup as asked is installed here, or fails with
     * the reason (another configuration won the name). Requests for one name with one configuration share an answer.
     */
    synchronized CompletableFuture<Void> await(final SubgroupConfig config)
    {
        final Request pending = waiting.get(config.name());
        if (pending != null && !pending.config().equals(config))
        {
            throw new IllegalStateException("subgroup " + config.name() + " is being added here with another " +
                "configuration: " + pending.config());
        }
        return waiting.computeIfAbsent(config.name(), n -> new Request(config, new CompletableFuture<>())).answer();
    }

    synchronized void forget(final String name, final CompletableFuture<Void> answer)
    {
        final Request r = waiting.get(name);
        if (r != null && r.answer() == answer)
        {
            waiting.remove(name);
        }
        leaving.remove(name, answer);
    }

    /**
     * A removal request of this member: completes once a view without the subgroup is installed here, or fails with
     * the reason. Requests to remove one name share an answer.
     */
    synchronized CompletableFuture<Void> awaitRemoval(final String name)
    {
        return leaving.computeIfAbsent(name, n -> new CompletableFuture<>());
    }

    /**
     * A request delivered here (predicate thread or invoker, or the membership thread for a trim outside invoker
     * mode), in the channel's order. The same as an agreed or requested subgroup of that name: nothing to do;
     * different: refused; new: requested.
     */
    void onDelivery(final Message m, final WeftConfig config)
    {
        final byte[] bytes = new byte[m.length()];
        java.lang.foreign.MemorySegment.copy(m.segment(), ValueLayout.JAVA_BYTE, m.offset(), bytes, 0, bytes.length);
        onRequest(bytes, m.senderId(), config);
    }

    /** {@link #onDelivery} on the message's bytes and sender. */
    void onRequest(final byte[] bytes, final int senderId, final WeftConfig config)
    {
        final DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try
        {
            final int kind = in.readByte();
            if (kind == ADD)
            {
                onAdd(Spec.decode(in), senderId, config);
            }
            else if (kind == REMOVE)
            {
                final int version = in.readByte();
                if (version != VERSION)
                {
                    throw new IOException("runtime subgroup removal of version " + version + ", this member reads " +
                        VERSION);
                }
                onRemove(in.readUTF(), senderId, config);
            }
            else
            {
                throw new IOException("a request of kind " + kind);
            }
        }
        catch (final IOException ex)
        {
            LOG.error("a runtime subgroup request from member {} is malformed and ignored: {}", senderId,
                ex.getMessage());
        }
    }

    private void onAdd(final Spec spec, final int senderId, final WeftConfig config)
    {
        final String name = spec.config().name();
        synchronized (this)
        {
            final SubgroupConfig there = existing(config, name);
            final String why = removals.contains(name) ? "subgroup " + name + " is being removed; ask again once " +
                "the view change that removes it is over" : there != null ? (there.equals(spec.config()) ? null :
                "subgroup " + name + " exists with another configuration: " + there) :
                invalid(config.group(), spec.config());
            final boolean mine = senderId == config.memberId();
            if (there == null && why == null)
            {
                requested.add(spec);
                LOG.info("member {} asked for subgroup {}: it is added at the next view change", senderId, name);
            }
            else if (why != null)
            {
                LOG.warn("refused member {}'s request for subgroup {}: {}", senderId, name, why);
                final Request r = mine ? waiting.get(name) : null;
                if (r != null && r.config().equals(spec.config()))
                {
                    waiting.remove(name).answer().completeExceptionally(new IllegalStateException(why));
                }
            }
            else if (mine && named(requested, name) == null)
            {
                final Request r = waiting.remove(name); // there already, as asked: nothing to wait for
                if (r != null)
                {
                    r.settle(there);
                }
            }
        }
    }

    /**
     * A removal request in the channel's order: a subgroup added at run time (agreed, or requested in this view) is
     * dropped at the next view change; a configured subgroup, the channel or an unknown name is refused.
     */
    private void onRemove(final String name, final int senderId, final WeftConfig config)
    {
        synchronized (this)
        {
            final String why = config.subgroups().stream().anyMatch(s -> s.name().equals(name)) ||
                name.equals(MembershipConfig.RUNTIME_CHANNEL) ? "subgroup " + name + " is configured " +
                "(weft.subgroups); only subgroups added at run time can be removed" : named(agreed, name) == null &&
                named(requested, name) == null ? "no subgroup " + name + " was added at run time" : null;
            if (why != null)
            {
                LOG.warn("refused member {}'s request to remove subgroup {}: {}", senderId, name, why);
                final CompletableFuture<Void> mine = senderId == config.memberId() ? leaving.remove(name) : null;
                if (mine != null)
                {
                    mine.completeExceptionally(new IllegalStateException(why));
                }
            }
            else if (!removals.contains(name))
            {
                removals.add(name);
                LOG.info("member {} asked to remove subgroup {}: it is removed at the next view change", senderId,
                    name);
            }
        }
    }

    private SubgroupConfig existing(final WeftConfig config, final String name)
    {
        for (final SubgroupConfig s : config.subgroups())
        {
            if (s.name().equals(name))
            {
                return s;
            }
        }
        final SubgroupConfig added = named(agreed, name);
        if (added != null)
        {
            return added;
        }
        final SubgroupConfig asked = named(requested, name);
        return asked != null ? asked : name.equals(MembershipConfig.RUNTIME_CHANNEL) ? channel() : null;
    }

    /** Why {@code sg} cannot be a subgroup of {@code group} ({@link SubgroupConfig#validateAgainst}), or null. */
    static String invalid(final GroupConfig group, final SubgroupConfig sg)
    {
        try
        {
            sg.validateAgainst(group);
            return null;
        }
        catch (final WeftConfigException ex)
        {
            return ex.getMessage();
        }
    }

    /** New requests were delivered in this view: the leader proposes a view change to carry them out. */
    synchronized boolean pending()
    {
        return !requested.isEmpty() || !removals.isEmpty();
    }

    /**
     * At the end of a view, once its last messages (the trim) are delivered: the additions of the view become part
     * of every later view, in request order, then its removals leave it; the listeners are told of each.
     *
     * @return the subgroups removed: they are not in the next view.
     */
    List<String> agree()
    {
        final List<Spec> added;
        final List<String> gone;
        synchronized (this)
        {
            added = List.copyOf(requested);
            requested.clear();
            gone = List.copyOf(removals);
            removals.clear();
        }
        added.forEach(this::add);
        gone.forEach(this::remove);
        return gone;
    }

    /** A joiner's list from its admission: the subgroups of the view it enters. */
    void adopt(final List<Spec> specs)
    {
        specs.forEach(this::add);
    }

    private void add(final Spec spec)
    {
        BatchHandler h = null;
        for (final SubgroupAddedListener l : listeners)
        {
            try
            {
                final BatchHandler mine = l.onSubgroupAdded(spec.config(), spec.properties());
                h = h == null ? mine : h;
            }
            catch (final RuntimeException ex)
            {
                LOG.error("a listener of added subgroup {} failed", spec.config().name(), ex);
            }
        }
        synchronized (this)
        {
            agreed.add(spec);
            removed.remove(spec.config().name());
            if (h != null)
            {
                handlers.put(spec.config().name(), h);
            }
        }
    }

    private void remove(final String name)
    {
        for (final SubgroupRemovedListener l : removedListeners)
        {
            try
            {
                l.onSubgroupRemoved(name);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("a listener of removed subgroup {} failed", name, ex);
            }
        }
        synchronized (this)
        {
            agreed.removeIf(s -> s.config().name().equals(name));
            handlers.remove(name);
            removed.add(name);
            final Request r = waiting.remove(name); // added and removed in one view change: it never opened here
            if (r != null)
            {
                r.answer().completeExceptionally(new IllegalStateException("subgroup " + name + " was removed in " +
                    "the view change that added it"));
            }
        }
        LOG.info("subgroup {} removed", name);
    }

    /** After a view is installed: local requests for subgroups it holds, or no longer holds, are answered. */
    synchronized void installed()
    {
        for (final Spec s : agreed)
        {
            final Request r = waiting.remove(s.config().name());
            if (r != null)
            {
                r.settle(s.config()); // another member's request may have won the name before this one was delivered
            }
        }
        leaving.entrySet().removeIf(e ->
        {
            if (!removed.contains(e.getKey()))
            {
                return false;
            }
            e.getValue().complete(null);
            return true;
        });
    }

    /** The member stopped: nothing more will be added or removed here. */
    synchronized void stopped(final String why)
    {
        waiting.values().forEach(r -> r.answer().completeExceptionally(new IllegalStateException(why)));
        waiting.clear();
        leaving.values().forEach(f -> f.completeExceptionally(new IllegalStateException(why)));
        leaving.clear();
    }

    static void encodeAll(final List<Spec> specs, final DataOutputStream out) throws IOException
    {
        out.writeShort(specs.size());
        for (final Spec s : specs)
        {
            final byte[] b = s.encode();
            out.writeShort(b.length);
            out.write(b);
        }
    }

    static List<Spec> decodeAll(final DataInputStream in) throws IOException
    {
        final int n = in.readShort();
        if (n < 0)
        {
            throw new IOException(n + " runtime subgroups");
        }
        final List<Spec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final int length = in.readShort();
            if (length < 0 || length > MAX_SPEC)
            {
                throw new IOException("a runtime subgroup of " + length + " bytes");
            }
            specs.add(Spec.decode(new DataInputStream(new ByteArrayInputStream(in.readNBytes(length)))));
        }
        return specs;
    }
}
