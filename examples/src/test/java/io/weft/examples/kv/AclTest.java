package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACL for the one user, default: the answers redis-server 7.0.15 gave, with and without requirepass. */
@Timeout(10)
class AclTest
{
    @TempDir
    Path dir;

    @Test
    void describesTheDefaultUserAsRedis() throws Exception
    {
        final DefaultUser open = DefaultUser.NO_PASSWORD;
        final DefaultUser closed = DefaultUser.fromFile(Files.writeString(dir.resolve("pass"), "s3cret\n"));
        assertEquals("default", text(acl(open, "ACL WHOAMI")));
        assertEquals("[default]", text(acl(closed, "ACL USERS")));
        assertEquals("[user default on nopass ~* &* +@all]", text(acl(open, "ACL LIST")));
        final String sha = "1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0"; // Redis's, of s3cret
        assertEquals("[user default on #" + sha + " ~* &* +@all]", text(acl(closed, "ACL LIST")));
        final String user = "{flags=[on], passwords=[" + sha + "], commands=+@all, keys=~*, channels=&*, selectors=[]}";
        assertEquals(user, text(acl(closed, "ACL GETUSER default")));
        assertEquals(user.replace("[on]", "[on, nopass]").replace(sha, ""), text(acl(open, "ACL GETUSER default")));
        assertEquals(Reply.NIL, acl(open, "ACL GETUSER bob"));
        assertEquals(Reply.NIL, acl(open, "ACL GETUSER Default"));
        assertEquals(Reply.error("ERR The 'default' user cannot be removed"), acl(open, "ACL DELUSER bob default"));
        assertEquals(new Reply.Int(0), acl(open, "ACL DELUSER bob"));
        assertTrue(text(acl(open, "ACL SETUSER bob")).startsWith("ERR ACL SETUSER is not supported by this store"));
        assertTrue(text(acl(open, "ACL HELP")).contains("WHOAMI"));
        assertEquals(new Reply.Int(0), acl(closed, "ACL DELUSER bob"));
    }

    @Test
    void genpassMakesRandomHexOfTheBitsAsked()
    {
        final String a = text(acl(DefaultUser.NO_PASSWORD, "ACL GENPASS"));
        assertTrue(a.matches("[0-9a-f]{64}"), a);
        assertTrue(!a.equals(text(acl(DefaultUser.NO_PASSWORD, "ACL GENPASS"))), "random");
        assertTrue(text(acl(DefaultUser.NO_PASSWORD, "ACL GENPASS 10")).matches("[0-9a-f]{3}"));
        for (final String bits : List.of("0", "4097", "-1"))
        {
            assertEquals(Reply.error("ERR ACL GENPASS argument must be the number of bits for the output password, " +
                "a positive number up to 4096"), acl(DefaultUser.NO_PASSWORD, "ACL GENPASS " + bits));
        }
        assertEquals("ERR value is not an integer or out of range", assertThrows(KvStore.SyntaxError.class,
            () -> acl(DefaultUser.NO_PASSWORD, "ACL GENPASS x")).getMessage());
    }

    private static Reply acl(final DefaultUser user, final String command)
    {
        return Acl.answer(user, Arrays.stream(command.split(" ")).map(w -> w.getBytes(StandardCharsets.UTF_8))
            .toList());
    }

    private static String text(final Reply reply)
    {
        return switch (reply)
        {
            case Reply.Bulk b -> new String(b.bytes(), StandardCharsets.UTF_8);
            case Reply.Error e -> e.text();
            case Reply.Map m -> mapText(m.keysAndValues());
            case Reply.Array a -> a.items().stream().map(AclTest::text).toList().toString();
            default -> reply.toString();
        };
    }

    private static String mapText(final List<Reply> keysAndValues)
    {
        final StringBuilder out = new StringBuilder("{");
        for (int i = 0; i < keysAndValues.size(); i += 2)
        {
            out.append(i == 0 ? "" : ", ").append(text(keysAndValues.get(i))).append('=');
            final Reply value = keysAndValues.get(i + 1);
            out.append(text(value));
        }
        return out.append('}').toString();
    }
}
