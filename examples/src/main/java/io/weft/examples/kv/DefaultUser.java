package io.weft.examples.kv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;

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
    private static final byte[] NAME = "default".getBytes(StandardCharsets.US_ASCII);

    private final byte[] password;

    private DefaultUser(final byte[] password)
    {
        this.password = password;
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
        return new DefaultUser(Arrays.copyOf(bytes, end));
    }

    /** The password's SHA-256 in hex, as ACL LIST and GETUSER show it; null without a password. */
    String passwordSha256()
    {
        return password == null ? null : HexDigest.of("SHA-256", password);
    }

    /** Whether a connection must authenticate before its commands run. */
    boolean required()
    {
        return password != null;
    }

    /** Whether {@code user} with {@code pass} authenticates: {@code default} with its password, any if it has none. */
    boolean accepts(final byte[] user, final byte[] pass)
    {
        final boolean known = Arrays.equals(user, NAME);
        return password == null ? known : known & MessageDigest.isEqual(password, pass); // no early exit on a byte
    }
}
