package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Glob patterns match as the same patterns written as regular expressions, in time bounded by their lengths. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a match that never ends is abandoned
class GlobTest
{
    /** Pattern elements, each with the regular expression it stands for. */
    private static final String[][] ELEMENTS = {{"a", "a"}, {"b", "b"}, {"*", ".*"}, {"?", "."}, {"[ab]", "[ab]"},
        {"[^a]", "[^a]"}, {"[b-a]", "[ab]"}, {"\\*", "\\*"}, {"\\[", "\\["}, {"[", "\\["}, {"**", ".*"}};
    private static final String TEXT = "ab*[";

    @Test
    void randomPatternsMatchAsTheirRegularExpressions()
    {
        final Random random = new Random(7);
        for (int n = 0; n < 200_000; n++)
        {
            final StringBuilder glob = new StringBuilder();
            final StringBuilder regex = new StringBuilder();
            for (int e = random.nextInt(7); e > 0; e--)
            {
                final String[] element = ELEMENTS[random.nextInt(ELEMENTS.length)];
                if (element[0].equals("[") && e > 1)
                {
                    continue; // an unclosed '[' is a literal only where no ']' follows it
                }
                glob.append(element[0]);
                regex.append(element[1]);
            }
            final StringBuilder text = new StringBuilder();
            for (int c = random.nextInt(8); c > 0; c--)
            {
                text.append(TEXT.charAt(random.nextInt(TEXT.length())));
            }
            final boolean expected = Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(text).matches();
            assertEquals(expected, matches(glob.toString(), text.toString()), "'" + glob + "' on '" + text + "'");
        }
    }

    @Test
    void manyStarsTakeTimeInTheLengthsNotExponentialInThem()
    {
        final String aaa = "a".repeat(10_000);
        // a recursion over every star took longer than this test's bound on the first of these (C(10000, 12) paths)
        assertFalse(matches("*a*a*a*a*a*a*a*a*a*a*a*a*b", aaa));
        assertTrue(matches("*a*a*a*a*a*a*a*a*a*a*a*a*", aaa));
        assertFalse(matches("*?*?*?*?*?*?*?*?*?*?*?*?[^a]", aaa));
        assertTrue(matches("a*a*a*a*a*a*a*a*a*a*a*a*a", aaa));
    }

    private static boolean matches(final String glob, final String text)
    {
        return Glob.matches(glob.getBytes(StandardCharsets.UTF_8), text.getBytes(StandardCharsets.UTF_8));
    }
}
