package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A Redis integer argument: what string2ll takes, and nothing else, without an exception to ask. */
@Timeout(10)
class ValueEditsTest
{
    /** Edge words and 100,000 random ones: taken exactly when they are a long's canonical decimal form. */
    @Test
    void integersAreStringToLongsCanonicalForms()
    {
        for (final String word : List.of("0", "-0", "00", "01", "-01", "+1", "1", "-1", "", "-", " 1", "1 ", "1a",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "09223372036854775807", "99999999999999999999", "123456789012345678901"))
        {
            check(word);
        }
        final Random random = new Random(3);
        final String alphabet = "0123456789-+ a";
        for (int i = 0; i < 100_000; i++)
        {
            final StringBuilder word = new StringBuilder();
            for (int n = random.nextInt(22); n > 0; n--)
            {
                word.append(alphabet.charAt(random.nextInt(random.nextBoolean() ? 10 : alphabet.length())));
            }
            check(word.toString());
        }
        assertEquals(Long.MIN_VALUE, ValueEdits.integer(bytes("-9223372036854775808")));
    }

    /** {@code word} taken, or refused with Redis's error, as its canonical form (Long's own text) says. */
    private static void check(final String word)
    {
        Long expected;
        try
        {
            expected = Long.parseLong(word);
            expected = Long.toString(expected).equals(word) ? expected : null;
        }
        catch (final NumberFormatException ex)
        {
            expected = null;
        }
        assertEquals(expected != null, ValueEdits.isInteger(bytes(word)), word);
        if (expected != null)
        {
            assertEquals(expected, ValueEdits.integer(bytes(word)), word);
        }
        else
        {
            assertEquals("ERR value is not an integer or out of range",
                assertThrows(KvStore.SyntaxError.class, () -> ValueEdits.integer(bytes(word)), word).getMessage());
        }
    }

    private static byte[] bytes(final String word)
    {
        return word.getBytes(StandardCharsets.US_ASCII);
    }
}
