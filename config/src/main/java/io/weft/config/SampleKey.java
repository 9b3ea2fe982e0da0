package io.weft.config;

/**
 * Where a volatile-storage topic finds a sample's key, for KEEP_LAST per key: {@code length} bytes at {@code offset}
 * of the encoded sample (a fixed-layout field, as a flyweight codec writes it), read as an unsigned big-endian number.
 * Every member reads the key from the bytes, so members that never decode the topic keep the same history.
 *
 * @param offset  first byte of the key in the encoded sample.
 * @param length  1..8 bytes.
 * @param maxKeys keys kept at most; a new key past it drops the key updated least recently, with its samples.
 */
public record SampleKey(int offset, int length, int maxKeys)
{
    public static final int MAX_KEYS = 1_000_000;

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public SampleKey
    {
        WeftConfigException.check(offset >= 0, "key.offset", offset, "must be >= 0");
        WeftConfigException.check(length >= 1 && length <= 8, "key.length", length, "must be 1..8 bytes");
        WeftConfigException.check(maxKeys >= 1 && maxKeys <= MAX_KEYS, "key.max-keys", maxKeys, "must be 1.." +
            MAX_KEYS);
    }

    /** Bytes a sample needs for its key. */
    public int end()
    {
        return offset + length;
    }
}
