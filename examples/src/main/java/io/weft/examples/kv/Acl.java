package io.weft.examples.kv;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * ACL, for the one user this store has ({@link DefaultUser}): WHOAMI, USERS, LIST, GETUSER and DELUSER describe it as
 * Redis 7.0 describes its default user (every command, key and channel; its password as a SHA-256, or nopass); GENPASS
 * makes a password as Redis does. What would need users of their own (SETUSER, DRYRUN, CAT's categories, the ACL file
 * and log) is refused with the reason ({@link Subcommands}).
 */
final class Acl
{
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Reply DEFAULT = new Reply.Bulk(DefaultUser.NAME);

    private Acl()
    {
    }

    /** ACL's subcommands, their arity checked before ({@link Subcommands}). */
    static Reply answer(final DefaultUser user, final List<byte[]> args)
    {
        return switch (Commands.word(args.get(1)))
        {
            case "WHOAMI" -> DEFAULT;
            case "USERS" -> new Reply.Array(List.of(DEFAULT));
            case "LIST" -> new Reply.Array(List.of(Reply.Bulk.of("user default on " + (user.passwordSha256() == null ?
                "nopass" : "#" + user.passwordSha256()) + " ~* &* +@all")));
            case "GETUSER" -> Arrays.equals(args.get(2), DefaultUser.NAME) ? describe(user) : Reply.NIL;
            case "DELUSER" -> args.subList(2, args.size()).stream().anyMatch(u -> Arrays.equals(u, DefaultUser.NAME)) ?
                Reply.error("ERR The 'default' user cannot be removed") : new Reply.Int(0);
            case "GENPASS" -> genpass(args);
            case "HELP" -> Subcommands.help("ACL");
            default -> Subcommands.unsupported("ACL", args);
        };
    }

    /** GETUSER default: its flags, passwords, commands, keys, channels and selectors, in Redis 7.0's order. */
    private static Reply describe(final DefaultUser user)
    {
        final String sha = user.passwordSha256();
        final List<Reply> flags = new ArrayList<>(List.of(Reply.Bulk.of("on")));
        if (sha == null)
        {
            flags.add(Reply.Bulk.of("nopass"));
        }
        return new Reply.Map(List.of(Reply.Bulk.of("flags"), new Reply.Array(flags), Reply.Bulk.of("passwords"),
            new Reply.Array(sha == null ? List.of() : List.of(Reply.Bulk.of(sha))), Reply.Bulk.of("commands"),
            Reply.Bulk.of("+@all"), Reply.Bulk.of("keys"), Reply.Bulk.of("~*"), Reply.Bulk.of("channels"),
            Reply.Bulk.of("&*"), Reply.Bulk.of("selectors"), new Reply.Array(List.of())));
    }

    /** GENPASS [bits]: that many random bits (256 by default, 4096 at most) in hex, rounded up to whole digits. */
    private static Reply genpass(final List<byte[]> args)
    {
        final long bits = args.size() > 2 ? ValueEdits.integer(args.get(2)) : 256;
        if (bits <= 0 || bits > 4096)
        {
            return Reply.error("ERR ACL GENPASS argument must be the number of bits for the output password, a " +
                "positive number up to 4096");
        }
        final byte[] random = new byte[(int)(bits + 7) / 8];
        RANDOM.nextBytes(random);
        return Reply.Bulk.of(HexFormat.of().formatHex(random).substring(0, (int)(bits + 3) / 4));
    }
}
