package io.weft.examples.kv;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A digest in lower-case hex, as Redis prints them: a script's SHA-1, a password's SHA-256. */
final class HexDigest
{
    private HexDigest()
    {
    }

    /** The {@code algorithm} (one every JVM has) digest of {@code bytes}. */
    static String of(final String algorithm, final byte[] bytes)
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has " + algorithm, ex);
        }
    }
}
