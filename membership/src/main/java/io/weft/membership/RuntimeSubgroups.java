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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Subgroups added while the group runs. A request travels as a message of the ordered subgroup
 * {@value MembershipConfig#RUNTIME_CHANNEL}, so every member sees the requests in the same order; a new one makes
 * the leader propose a view change ({@link ChangeList#RECONFIGURED}), and every survivor, having delivered the same
 * messages of the view by its end, adds the same subgroups to the next view. Joiners receive the list with their
 * view. Decisions on a request (new, the same as one already there, or a conflicting one) depend only on the
 * delivery order, so every member makes the same.
 */
final class RuntimeSubgroups
{
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeSubgroups.class);
    /** Largest encoded request; also the channel's max-payload. */
    static final int MAX_SPEC = 4096;
    private static final int CHANNEL_WINDOW = 8;
    private static final byte VERSION = 1;

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
    private final List<Spec> agreed = new ArrayList<>();            // guarded by this: in every view from the next on
    private final List<Spec> requested = new ArrayList<>();         // guarded by this: delivered in this view, new
    private final Map<String, BatchHandler> handlers = new HashMap<>(); // guarded by this
    private final Map<String, Request> waiting = new HashMap<>(); // guarded by this: this member's requests by name

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

    RuntimeSubgroups(final WeftConfig config, final List<SubgroupAddedListener> listeners)
    {
        this.enabled = config.membership().runtimeSubgroups();
        this.listeners = listeners;
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
    }

    /**
     * A request delivered here (predicate thread, or the membership thread for a trim), in the channel's order. The
     * same as an agreed or requested subgroup of that name: nothing to do; different: refused; new: requested.
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
        final Spec spec;
        try
        {
            spec = Spec.decode(new DataInputStream(new ByteArrayInputStream(bytes)));
        }
        catch (final IOException ex)
        {
            LOG.error("a runtime subgroup request from member {} is malformed and ignored: {}", senderId,
                ex.getMessage());
            return;
        }
        final String name = spec.config().name();
        synchronized (this)
        {
            final SubgroupConfig there = existing(config, name);
            final String why = there != null ? (there.equals(spec.config()) ? null : "subgroup " + name +
                " exists with another configuration: " + there) : invalid(config.group(), spec.config());
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

    /** New requests were delivered in this view: the leader proposes a view change to add them. */
    synchronized boolean pending()
    {
        return !requested.isEmpty();
    }

    /**
     * At the end of a view, once its last messages (the trim) are delivered: the requests of the view become part
     * of every later view, in request order; the listener is told of each.
     */
    void agree()
    {
        final List<Spec> added;
        synchronized (this)
        {
            added = List.copyOf(requested);
            requested.clear();
        }
        added.forEach(this::add);
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
            if (h != null)
            {
                handlers.put(spec.config().name(), h);
            }
        }
    }

    /** After a view is installed: local requests for subgroups it holds are answered. */
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
    }

    /** The member stopped: nothing more will be added here. */
    synchronized void stopped(final String why)
    {
        waiting.values().forEach(r -> r.answer().completeExceptionally(new IllegalStateException(why)));
        waiting.clear();
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
