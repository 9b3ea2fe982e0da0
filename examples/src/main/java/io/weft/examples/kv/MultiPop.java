package io.weft.examples.kv;

import java.util.List;

/**
 * The words of LMPOP and ZMPOP (and of BLMPOP and BZMPOP after their timeout): {@code numkeys key [key ...]
 * END1|END2 [COUNT count]}, read as Redis reads them.
 *
 * @param first the index of the first key in the arguments
 * @param end   the index after the last key
 * @param head  whether the first end word was given (LEFT, MIN), not the second (RIGHT, MAX)
 * @param count how many to pop at most: COUNT's, else 1
 */
record MultiPop(int first, int end, boolean head, long count)
{
    private static final String SYNTAX = "ERR syntax error";

    /** Reads {@code args}, the command's name at 0 and numkeys at 1; Redis's errors for what does not parse. */
    static MultiPop parse(final List<byte[]> args, final String headWord, final String tailWord)
    {
        final long keys = ValueEdits.atLeast(args.get(1), 1, "ERR numkeys should be greater than 0");
        if (keys > args.size() - 3) // no room for the end word after the keys (2 + keys would overflow for 2^63 - 1)
        {
            throw new KvStore.SyntaxError(SYNTAX);
        }
        final int endAt = 2 + (int)keys;
        final String endWord = Commands.word(args.get(endAt));
        if (!endWord.equals(headWord) && !endWord.equals(tailWord))
        {
            throw new KvStore.SyntaxError(SYNTAX);
        }
        long count = -1;
        for (int j = endAt + 1; j < args.size(); j++)
        {
            if (count != -1 || j + 1 >= args.size() || !Commands.word(args.get(j)).equals("COUNT"))
            {
                throw new KvStore.SyntaxError(SYNTAX);
            }
            count = ValueEdits.atLeast(args.get(++j), 1, "ERR count should be greater than 0");
        }
        return new MultiPop(2, endAt, endWord.equals(headWord), Math.max(count, 1));
    }
}
