package io.weft.examples.kv;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Message digests, and their lower-case hex as Redis prints them: a script's SHA-1, a password's SHA-256. */
final class Digests
{
    private Digests()
    {
    }

    /** The {@code algorithm} (one every JVM has) digest of {@code bytes}. */
    static byte[] of(final String algorithm, final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance(algorithm).digest(bytes);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has " + algorithm, ex);
        }
    }

    /** {@link #of} in lower-case hex. */
    static String hex(final String algorithm, final byte[] bytes)
    {
        return HexFormat.of().formatHex(of(algorithm, bytes));
    }
}
