package io.weft.examples.kv;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A sorted set, as {@link Keyspace} stores it ({@link ZSetCommands}): its members with their scores, and its expiry.
 * A new expiry is a new value over the same {@link Members}, as a list's is ({@link ListValue}).
 *
 * @param members  the members, in Redis's order: by score, then by the member's bytes (unsigned).
 * @param expireAt the expiry time in epoch milliseconds, 0 for none.
 */
record ZSetValue(Members members, long expireAt) implements WriterOwned<ZSetValue>
{
    /**
     * What a member takes besides its bytes (an estimate, as {@link ListValue#ITEM_OVERHEAD}): its tree node, its
     * entry, key and score in the member map. Of the members alone: every member must estimate the same.
     */
    static final int MEMBER_OVERHEAD = 160;
    /** What a sorted set takes besides its members and its entry's share: the record, the map's and tree's heads. */
    static final int ZSET_OVERHEAD = 160;

    /** A new, empty sorted set made at cut count {@code cut}: no cut holds it. */
    static ZSetValue empty(final long cut)
    {
        return new ZSetValue(new Members(cut), 0);
    }

    @Override
    public ZSetValue withExpiry(final long at)
    {
        return new ZSetValue(members, at);
    }

    @Override
    public ZSetValue copy(final long cut)
    {
        return new ZSetValue(members.copy(cut), expireAt);
    }

    @Override
    public Members contents()
    {
        return members;
    }

    /**
     * A score as Redis 7.2 writes it: an integer of at most 2^62 as an integer, infinities as {@code inf} and
     * {@code -inf}, any other as the shortest digits that read back as the same double, laid out as C's {@code %.17g}
     * lays them out (an exponent from -5 down or from 17 up in scientific notation, {@code 1e+20}).
     */
    static String format(final double score)
    {
        if (Double.isInfinite(score))
        {
            return score > 0 ? "inf" : "-inf";
        }
        if (score == 0)
        {
            return 1 / score < 0 ? "-0" : "0";
        }
        if (Math.abs(score) <= Long.MAX_VALUE / 2 && score == (long)score)
        {
            return Long.toString((long)score);
        }
        final BigDecimal shortest = new BigDecimal(Double.toString(score)).stripTrailingZeros();
        final String digits = shortest.unscaledValue().abs().toString();
        final int exponent = digits.length() - 1 - shortest.scale(); // of the first digit
        final String sign = score < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 17)
        {
            final String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            final int e = Math.abs(exponent);
            return sign + mantissa + (exponent < 0 ? "e-" : "e+") + (e < 10 ? "0" : "") + e;
        }
        return sign + shortest.abs().toPlainString();
    }

    /**
     * A score argument as Redis reads one ({@link Strtod}, the range checked); {@code error} for anything else, NaN,
     * white space around it, or a number out of a double's range.
     */
    static double parse(final byte[] bytes, final String error)
    {
        return parse(bytes, error, true);
    }

    /** {@link #parse(byte[], String)}, hexadecimal refused unless {@code hexadecimal} (before {@link Strtod#SINCE}). */
    static double parse(final byte[] bytes, final String error, final boolean hexadecimal)
    {
        final double value = Strtod.read(new String(bytes, StandardCharsets.ISO_8859_1), true, hexadecimal);
        if (Double.isNaN(value))
        {
            throw new KvStore.SyntaxError(error);
        }
        return value;
    }

    /** One member: its score and bytes, and its place in the tree. */
    static final class Node
    {
        final double score;
        final byte[] member;
        /** A treap's heap priority: random, so that the tree is balanced whatever order members come in. */
        private final int priority;
        private Node left;
        private Node right;
        /** Nodes in this subtree, this one too: what ranks are counted by. */
        private int size = 1;

        private Node(final double score, final byte[] member, final int priority)
        {
            this.score = score;
            this.member = member;
            this.priority = priority;
        }

        /** Whether this node comes before (score, member) in the set's order; or is it, where {@code orIt}. */
        private boolean before(final double score, final byte[] member, final boolean orIt)
        {
            if (this.score != score)
            {
                return this.score < score;
            }
            final int c = Arrays.compareUnsigned(this.member, member);
            return c < 0 || orIt && c == 0;
        }

        private Node copy()
        {
            final Node copy = new Node(score, member, priority);
            copy.left = left == null ? null : left.copy();
            copy.right = right == null ? null : right.copy();
            copy.size = size;
            return copy;
        }
    }

    /**
     * The members: a map from member to node, and the nodes in a treap ordered by (score, member) that counts the
     * nodes under each, so that a rank, a member at a rank and the count below a score each take a walk of the tree's
     * height (Redis's skip list with spans does the same). Written and read by the writing thread only, as a list's
     * items are ({@link ListValue.Items}): a sorted set's reads go through the group even with local reads, and the
     * writing thread copies members a cut holds before their first change after it ({@link #cut}).
     */
    static final class Members extends WriterOwned.Contents
    {
        private final Map<Key, Node> byMember;
        private Node root;
        /** What the members take, estimated: their bytes and {@value ZSetValue#MEMBER_OVERHEAD} each. */
        private long bytes;

        Members(final long cut)
        {
            this(cut, new HashMap<>());
        }

        private Members(final long cut, final Map<Key, Node> byMember)
        {
            super(cut);
            this.byMember = byMember;
        }

        /** A copy of these members made at cut count {@code cut}. */
        Members copy(final long cut)
        {
            final Members copy = new Members(cut, HashMap.newHashMap(byMember.size()));
            copy.root = root == null ? null : root.copy();
            copy.bytes = bytes;
            copy.index(copy.root);
            return copy;
        }

        private void index(final Node node)
        {
            if (node != null)
            {
                byMember.put(new Key(node.member), node);
                index(node.left);
                index(node.right);
            }
        }

        @Override
        int size()
        {
            return byMember.size();
        }

        @Override
        String type()
        {
            return "zset";
        }

        /** {@code member}'s node, null if it is not a member. */
        Node get(final byte[] member)
        {
            return byMember.get(new Key(member));
        }

        /** Adds {@code member} with {@code score}, or moves it there. */
        void put(final byte[] member, final double score)
        {
            final Key key = new Key(member);
            final Node old = byMember.get(key);
            if (old != null)
            {
                if (old.score == score)
                {
                    return;
                }
                unlink(old);
            }
            else
            {
                bytes += member.length + MEMBER_OVERHEAD;
            }
            final Node node = new Node(score, member, ThreadLocalRandom.current().nextInt());
            byMember.put(key, node);
            final Node[] halves = split(root, score, member, false);
            root = merge(merge(halves[0], node), halves[1]);
        }

        /** Removes {@code member}; whether it was one. */
        boolean remove(final byte[] member)
        {
            final Node node = byMember.remove(new Key(member));
            if (node == null)
            {
                return false;
            }
            unlink(node);
            bytes -= member.length + MEMBER_OVERHEAD;
            return true;
        }

        /** Takes {@code node}, a member's, out of the tree (not out of the map). */
        private void unlink(final Node node)
        {
            final Node[] below = split(root, node.score, node.member, false);
            final Node[] it = split(below[1], node.score, node.member, true);
            root = merge(below[0], it[1]);
        }

        /** The member at {@code rank}, 0 to size - 1, in the set's order. */
        Node at(final int rank)
        {
            Node node = root;
            int r = rank;
            while (true)
            {
                final int left = size(node.left);
                if (r < left)
                {
                    node = node.left;
                }
                else if (r == left)
                {
                    return node;
                }
                else
                {
                    r -= left + 1;
                    node = node.right;
                }
            }
        }

        /** {@code it}'s rank: how many members come before it. */
        int rank(final Node it)
        {
            int count = 0;
            for (Node node = root; node != null; )
            {
                if (node.before(it.score, it.member, false))
                {
                    count += size(node.left) + 1;
                    node = node.right;
                }
                else
                {
                    node = node.left;
                }
            }
            return count;
        }

        /** How many members have a score below {@code score}, or equal to it where {@code orEqual}. */
        int belowScore(final double score, final boolean orEqual)
        {
            int count = 0;
            for (Node node = root; node != null; )
            {
                if (node.score < score || orEqual && node.score == score)
                {
                    count += size(node.left) + 1;
                    node = node.right;
                }
                else
                {
                    node = node.left;
                }
            }
            return count;
        }

        /**
         * How many members sort below {@code member} by their bytes alone, or equal it where {@code orEqual}: ranges
         * by member are defined where every score is the same (ZRANGEBYLEX), and there the order is the bytes' order.
         */
        int belowMember(final byte[] member, final boolean orEqual)
        {
            int count = 0;
            for (Node node = root; node != null; )
            {
                final int c = Arrays.compareUnsigned(node.member, member);
                if (c < 0 || orEqual && c == 0)
                {
                    count += size(node.left) + 1;
                    node = node.right;
                }
                else
                {
                    node = node.left;
                }
            }
            return count;
        }

        /** What the sorted set takes, estimated, as the length the key table keeps for the store's size. */
        @Override
        int length()
        {
            return (int)Math.min(Integer.MAX_VALUE, ZSET_OVERHEAD + bytes);
        }

        private static int size(final Node node)
        {
            return node == null ? 0 : node.size;
        }

        private static Node sized(final Node node)
        {
            node.size = size(node.left) + 1 + size(node.right);
            return node;
        }

        /** {@code node}'s tree in two: the nodes before (score, member) (or it too, {@code orIt}), and the rest. */
        private static Node[] split(final Node node, final double score, final byte[] member, final boolean orIt)
        {
            if (node == null)
            {
                return new Node[2];
            }
            if (node.before(score, member, orIt))
            {
                final Node[] right = split(node.right, score, member, orIt);
                node.right = right[0];
                right[0] = sized(node);
                return right;
            }
            final Node[] left = split(node.left, score, member, orIt);
            node.left = left[1];
            left[1] = sized(node);
            return left;
        }

        /** Two trees as one, every node of {@code a} before every node of {@code b}. */
        private static Node merge(final Node a, final Node b)
        {
            if (a == null || b == null)
            {
                return a == null ? b : a;
            }
            if (a.priority > b.priority)
            {
                a.right = merge(a.right, b);
                return sized(a);
            }
            b.left = merge(a, b.left);
            return sized(b);
        }
    }
}
