package io.weft.dds;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Supplier;

/** The codecs that come with the DDS layer: raw bytes, UTF-8 text, fixed-layout flyweights and JSON (Jackson). */
public final class Codecs
{
    private Codecs()
    {
    }

    /** {@return the codec of raw bytes: the sample is the payload} */
    public static Codec<byte[]> bytes()
    {
        return new Codec<>()
        {
            @Override
            public int encode(final byte[] sample, final MemorySegment segment, final long offset, final int capacity)
            {
                checkFits(sample.length, capacity);
                MemorySegment.copy(sample, 0, segment, ValueLayout.JAVA_BYTE, offset, sample.length);
                return sample.length;
            }

            @Override
            public byte[] decode(final MemorySegment segment, final long offset, final int length)
            {
                final byte[] b = new byte[length];
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, b, 0, length);
                return b;
            }
        };
    }

    /** {@return the codec of UTF-8 text} */
    public static Codec<String> utf8()
    {
        final Codec<byte[]> raw = bytes();
        return new Codec<>()
        {
            @Override
            public int encode(final String sample, final MemorySegment segment, final long offset, final int capacity)
            {
                return raw.encode(sample.getBytes(StandardCharsets.UTF_8), segment, offset, capacity);
            }

            @Override
            public String decode(final MemorySegment segment, final long offset, final int length)
            {
                return new String(raw.decode(segment, offset, length), StandardCharsets.UTF_8);
            }
        };
    }

    /**
     * A fixed-layout flyweight (as in SBE or Agrona): the sample is a view over bytes with named field offsets, read
     * and written in place. {@code decode} wraps a copy of the bytes in a fresh flyweight, so a decoded sample may be
     * kept; to avoid even that copy, read the bytes in place in a {@link DataReader} raw listener, or build a sample
     * in place with {@link DataWriter#loan}.
     *
     * @param factory makes an empty flyweight for each decoded sample.
     * @param <F>     the flyweight's type.
     * @return the codec.
     */
    public static <F extends Flyweight> Codec<F> flyweight(final Supplier<F> factory)
    {
        Objects.requireNonNull(factory, "factory");
        return new Codec<>()
        {
            @Override
            public int encode(final F sample, final MemorySegment segment, final long offset, final int capacity)
            {
                final int length = sample.encodedLength();
                checkFits(length, capacity);
                MemorySegment.copy(sample.segment(), sample.offset(), segment, offset, length);
                return length;
            }

            @Override
            public F decode(final MemorySegment segment, final long offset, final int length)
            {
                final MemorySegment copy = MemorySegment.ofArray(new byte[length]);
                MemorySegment.copy(segment, offset, copy, 0, length);
                final F f = factory.get();
                f.wrap(copy, 0, length);
                return f;
            }
        };
    }

    /**
     * JSON through Jackson, for any type Jackson can bind (records included).
     *
     * @param type the samples' class.
     * @param <T>  the samples' type.
     * @return the codec, with a mapper of Jackson's defaults.
     */
    public static <T> Codec<T> json(final Class<T> type)
    {
        return json(type, new ObjectMapper());
    }

    /**
     * JSON through the given Jackson mapper.
     *
     * @param type   the samples' class.
     * @param mapper reads and writes the samples (its settings apply).
     * @param <T>    the samples' type.
     * @return the codec.
     */
    public static <T> Codec<T> json(final Class<T> type, final ObjectMapper mapper)
    {
        Objects.requireNonNull(type, "type");
        final Codec<byte[]> raw = bytes();
        return new Codec<>()
        {
            @Override
            public int encode(final T sample, final MemorySegment segment, final long offset, final int capacity)
            {
                try
                {
                    return raw.encode(mapper.writeValueAsBytes(sample), segment, offset, capacity);
                }
                catch (final JsonProcessingException ex)
                {
                    throw new IllegalArgumentException("cannot encode " + type.getSimpleName() + " as JSON: " +
                        ex.getOriginalMessage(), ex);
                }
            }

            @Override
            public T decode(final MemorySegment segment, final long offset, final int length)
            {
                try
                {
                    return mapper.readValue(raw.decode(segment, offset, length), type);
                }
                catch (final IOException ex)
                {
                    throw new IllegalArgumentException("a sample is not the JSON of a " + type.getSimpleName() + ": " +
                        ex.getMessage(), ex);
                }
            }
        };
    }

    static void checkFits(final int length, final int capacity)
    {
        if (length > capacity)
        {
            throw new IllegalArgumentException("a sample of " + length + " bytes exceeds the topic's max-sample of " +
                capacity + " bytes");
        }
    }
}
