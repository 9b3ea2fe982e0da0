package io.weft.dds;

import io.weft.membership.StateTransfer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The state a joining participant installs before its first delivery: per topic this member is in, the next
 * position, and for storage topics the stored samples (the volatile history, or the whole log). Big-endian:
 * {@code magic "WDDS":4 version:2 topics:4 (name:UTF position:8 samples:4 (position:8 publisher:4 nanos:8 length:4
 * payload crc:4)*)*}.
 */
final class DomainState implements StateTransfer
{
    private static final int MAGIC = 0x57444453;
    private static final short VERSION = 1;

    private final Map<String, TopicState> topics;

    DomainState(final Map<String, TopicState> topics)
    {
        this.topics = topics;
    }

    @Override
    public byte[] snapshot()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeInt(MAGIC);
            out.writeShort(VERSION);
            out.writeInt(topics.size());
            for (final TopicState t : topics.values())
            {
                final long position;
                final List<LoggedSample> samples;
                synchronized (t)
                {
                    position = t.position();
                    samples = t.stored();
                }
                out.writeUTF(t.config.name());
                out.writeLong(position);
                out.writeInt(samples.size());
                for (final LoggedSample s : samples)
                {
                    out.writeLong(s.position());
                    out.writeInt(s.publisherId());
                    out.writeLong(s.sourceNanos());
                    out.writeInt(s.payload().length);
                    out.write(s.payload());
                    out.writeInt(s.crc());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    @Override
    public void install(final byte[] state)
    {
        if (state.length == 0)
        {
            return; // the donor has no DDS state (no participant there)
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state)))
        {
            if (in.readInt() != MAGIC || in.readShort() != VERSION)
            {
                throw new IllegalStateException("the state received on joining is not a DDS domain state of version " +
                    VERSION + " (a member of another build?)");
            }
            final int count = in.readInt();
            for (int i = 0; i < count; i++)
            {
                final String name = in.readUTF();
                final long position = in.readLong();
                final int n = in.readInt();
                final List<LoggedSample> samples = new ArrayList<>(n);
                for (int k = 0; k < n; k++)
                {
                    final long p = in.readLong();
                    final int publisher = in.readInt();
                    final long nanos = in.readLong();
                    final byte[] payload = new byte[in.readInt()];
                    in.readFully(payload);
                    samples.add(new LoggedSample(p, publisher, nanos, payload, in.readInt()));
                }
                final TopicState t = topics.get(name);
                if (t != null)
                {
                    t.install(position, samples);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("the state received on joining is truncated: " + ex.getMessage(), ex);
        }
    }
}
