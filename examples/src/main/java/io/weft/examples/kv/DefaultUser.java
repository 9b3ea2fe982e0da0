package io.weft.examples.kv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The store's one user, Redis's {@code default}. With a password (Redis's requirepass; {@code weft kv
 * --requirepass-file}) a connection runs nothing but AUTH, HELLO with AUTH, QUIT and RESET until it authenticates.
 * Without one every connection is authenticated, and {@code AUTH default} takes any password, as Redis's nopass
 * user does. The password guards the Redis ports only: the group's own ports are the members' (see docs/kv.md).
 */
public final class DefaultUser
{
    /** No password: every connection may run commands at once. */
    public static final DefaultUser NO_PASSWORD = new DefaultUser(null);
    static final Reply WRONG_PASS = Reply.error("WRONGPASS invalid username-password pair or user is disabled.");
    static final byte[] NAME = "default".getBytes(StandardCharsets.US_ASCII);

    /** The password's SHA-256, as Redis keeps it: the password itself is not kept, nor its length told by a compare. */
    private final byte[] hash;

    private DefaultUser(final byte[] hash)
    {
        this.hash = hash;
    }

    /**
     * The user whose password is the first line of {@code file} (without its line end), as bytes.
     *
     * @throws IllegalArgumentException the file cannot be read, or its first line is empty
     */
    public static DefaultUser fromFile(final Path file)
    {
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the password file " + file + " (" + ex + ")", ex);
        }
        int end = 0;
        while (end < bytes.length && bytes[end] != '\n')
        {
            end++;
        }
        if (end > 0 && bytes[end - 1] == '\r')
        {
            end--;
        }
        if (end == 0)
        {
            throw new IllegalArgumentException("the password file " + file + " has an empty first line: put the " +
                "password there");
        }
        final byte[] line = Arrays.copyOf(bytes, end);
        final byte[] hash = sha256(line);
        Arrays.fill(line, (byte)0); // the password is not kept: only its hash
        Arrays.fill(bytes, (byte)0);
        return new DefaultUser(hash);
    }

    private static byte[] sha256(final byte[] bytes)
    {
        return Digests.of("SHA-256", bytes);
    }

    /** The password's SHA-256 in hex, as ACL LIST and GETUSER show it; null without a password. */
    String passwordSha256()
    {
        return hash == null ? null : HexFormat.of().formatHex(hash);
    }

    /** Whether a connection must authenticate before its commands run. */
    boolean required()
    {
        return hash != null;
    }

    /** Whether {@code user} with {@code pass} authenticates: {@code default} with its password, any if it has none. */
    boolean accepts(final byte[] user, final byte[] pass)
    {
        final boolean known = Arrays.equals(user, NAME);
        return hash == null ? known : known & MessageDigest.isEqual(hash, sha256(pass)); // time independent of pass
    }
}
