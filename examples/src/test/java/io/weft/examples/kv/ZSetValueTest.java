package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static io.weft.examples.kv.StoreClient.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A sorted set's members against a plain sorted collection, and its scores as Redis 7.2 reads and writes them. */
@Timeout(30)
class ZSetValueTest
{
    private record Scored(double score, byte[] member)
    {
    }

    private static final Comparator<Scored> ORDER = Comparator.comparingDouble(Scored::score)
        .thenComparing(Scored::member, Arrays::compareUnsigned);

    /**
     * 30,000 random adds, moves and removes (many members on few scores, so that ties order by bytes, also bytes of
     * 0x80 and up, which sort after ASCII unsigned): after each batch every rank, the member at every rank, and the
     * counts below scores and members are the reference's; a copy taken midway keeps its members while the original
     * changes.
     */
    @Test
    void membersKeepRedisOrderThroughAddsMovesAndRemoves()
    {
        final Random random = new Random(7);
        final ZSetValue.Members members = new ZSetValue.Members(0);
        final TreeSet<Scored> reference = new TreeSet<>(ORDER);
        final Map<String, Scored> byMember = new HashMap<>();
        ZSetValue.Members copy = null;
        List<Scored> copied = null;
        for (int i = 0; i < 30_000; i++)
        {
            final byte[] member = {(byte)('a' + random.nextInt(20)), (byte)(random.nextBoolean() ? 0x90 : 'x'),
                (byte)random.nextInt(4)};
            final String name = Arrays.toString(member);
            final Scored old = byMember.get(name);
            if (random.nextInt(4) == 0)
            {
                members.remove(member);
                if (old != null)
                {
                    reference.remove(old);
                    byMember.remove(name);
                }
            }
            else
            {
                final double score = random.nextInt(8) - 3 + (random.nextBoolean() ? 0.5 : 0);
                members.put(member, score);
                if (old != null)
                {
                    reference.remove(old);
                }
                final Scored now = new Scored(score, member);
                reference.add(now);
                byMember.put(name, now);
            }
            if (i == 15_000)
            {
                copy = members.copy(1);
                copied = new ArrayList<>(reference);
            }
            if (i % 1_000 == 999)
            {
                same(reference, members);
            }
        }
        same(copied, copy);
        same(reference, members);
    }

    private static void same(final java.util.Collection<Scored> expected, final ZSetValue.Members members)
    {
        assertEquals(expected.size(), members.size());
        final List<Scored> inOrder = new ArrayList<>(expected);
        for (int rank = 0; rank < inOrder.size(); rank++)
        {
            final Scored s = inOrder.get(rank);
            final ZSetValue.Node node = members.at(rank);
            assertEquals(s.score(), node.score, "score at rank " + rank);
            assertEquals(Arrays.toString(s.member()), Arrays.toString(node.member), "member at rank " + rank);
            assertEquals(rank, members.rank(members.get(s.member())));
        }
        for (double score = -4; score <= 5; score += 0.5)
        {
            final double at = score;
            assertEquals(inOrder.stream().filter(s -> s.score() < at).count(), members.belowScore(at, false));
            assertEquals(inOrder.stream().filter(s -> s.score() <= at).count(), members.belowScore(at, true));
        }
    }

    /** Ranges by member count by bytes, unsigned, as Redis's memcmp does, where every score is the same. */
    @Test
    void rangesByMemberCountByUnsignedBytes()
    {
        final ZSetValue.Members members = new ZSetValue.Members(0);
        for (final String m : List.of("a", "b", "ba", "c", "\u00e9")) // é: 0xc3 0xa9 in UTF-8, after every ASCII
        {
            members.put(m.getBytes(StandardCharsets.UTF_8), 0);
        }
        assertEquals(1, members.belowMember(bytes("b"), false));
        assertEquals(2, members.belowMember(bytes("b"), true));
        assertEquals(3, members.belowMember(bytes("bz"), true));
        assertEquals(4, members.belowMember(bytes("z"), false));
        assertEquals("\u00e9", new String(members.at(4).member, StandardCharsets.UTF_8));
        assertNull(members.get(bytes("nope")));
        final int length = members.length();
        members.put(bytes("a"), 3); // a move: the same size
        assertEquals(length, members.length());
        members.remove(bytes("a"));
        assertEquals(length - 1 - ZSetValue.MEMBER_OVERHEAD, members.length());
    }

    /**
     * Scores written as Redis 7.2 writes them: integers up to 2^62 as integers, else the shortest digits that read
     * back the same, in {@code %.17g}'s layout.
     */
    @Test
    void scoresAreWrittenAsRedisWritesThem()
    {
        assertEquals("1", ZSetValue.format(1));
        assertEquals("-3", ZSetValue.format(-3));
        assertEquals("0", ZSetValue.format(0));
        assertEquals("-0", ZSetValue.format(-0.0));
        assertEquals("2.5", ZSetValue.format(2.5));
        assertEquals("0.1", ZSetValue.format(0.1));
        assertEquals("-0.001", ZSetValue.format(-0.001));
        assertEquals("0.0001", ZSetValue.format(0.0001));
        assertEquals("1e-05", ZSetValue.format(0.00001));
        assertEquals("1.5e-07", ZSetValue.format(1.5e-7));
        assertEquals("123456789012345680", ZSetValue.format(123456789012345678.0));
        assertEquals("1e+20", ZSetValue.format(1e20));
        assertEquals("1.2345e+300", ZSetValue.format(1.2345e300));
        assertEquals("inf", ZSetValue.format(Double.POSITIVE_INFINITY));
        assertEquals("-inf", ZSetValue.format(Double.NEGATIVE_INFINITY));
        for (final double d : new double[] {0.1, 1 / 3.0, Math.PI * 1e10, 9.87654321e-12, 4.9e-324, Double.MAX_VALUE})
        {
            assertEquals(d, Double.parseDouble(ZSetValue.format(d)), "reads back: " + ZSetValue.format(d));
        }
    }

    /**
     * Scores read as {@code strtod} reads them for Redis: infinities by name, hexadecimal, nothing around, no NaN, no
     * overflow.
     */
    @Test
    void scoresAreReadAsRedisReadsThem()
    {
        assertEquals(1.5, parse("1.5"));
        assertEquals(0.5, parse(".5"));
        assertEquals(5, parse("5."));
        assertEquals(-100, parse("-1E2"));
        assertEquals(1000, parse("+1e+3"));
        assertEquals(Double.POSITIVE_INFINITY, parse("inf"));
        assertEquals(Double.POSITIVE_INFINITY, parse("+Infinity"));
        assertEquals(Double.NEGATIVE_INFINITY, parse("-INF"));
        assertEquals(0, parse("0e500"));
        assertEquals(16, parse("0x10")); // hexadecimal too, as Redis takes it
        for (final String bad : List.of("", " 1", "1 ", "nan", "NaN", "1x", "--1", "+-1", "1e400", "1e-400", "0x1g",
            "1_0", "Infinityx", "1d", "e5"))
        {
            assertThrows(KvStore.SyntaxError.class, () -> parse(bad), "'" + bad + "'");
        }
    }

    private static double parse(final String text)
    {
        return ZSetValue.parse(bytes(text), "ERR value is not a valid float");
    }
}
