package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The words of an inline command (a line typed into telnet), split as Redis splits them (sdssplitargs): on blanks,
 * with "double quotes" that take escapes ({@code \n \r \t \b \a \\ \"}, {@code \xHH} for any byte) and 'single
 * quotes' that take only {@code \'}. A closing quote must end its word; a quote left open, or one followed by more of
 * the word, is refused with Redis's protocol error. Bytes stay as they came, so a word need not be UTF-8.
 */
final class InlineArgs
{
    private InlineArgs()
    {
    }

    /** The words of the {@code length} bytes of {@code in} from {@code from} (the line without its end). */
    static List<byte[]> split(final ByteBuf in, final int from, final int length)
    {
        final List<byte[]> words = new ArrayList<>();
        final ByteArrayOutputStream word = new ByteArrayOutputStream();
        final int end = from + length;
        int p = from;
        while (true)
        {
            while (p < end && blank(in.getByte(p)))
            {
                p++;
            }
            if (p == end || in.getByte(p) == 0) // a NUL ends the line, as it ends Redis's C string
            {
                return words;
            }
            p = word(in, p, end, word);
            words.add(word.toByteArray());
            word.reset();
        }
    }

    /** Reads the word at {@code start} into {@code word}; where the next begins. */
    private static int word(final ByteBuf in, final int start, final int end, final ByteArrayOutputStream word)
    {
        int p = start;
        char quote = 0;
        while (true)
        {
            final int c = p < end ? in.getByte(p) & 0xff : 0;
            final int next = p + 1 < end ? in.getByte(p + 1) & 0xff : 0;
            final int hexEscaped = c == '\\' && quote == '"' && next == 'x' ? hexByte(in, p + 2, end) : -1;
            if (quote == 0)
            {
                switch (c)
                {
                    case ' ', '\n', '\r', '\t', 0 ->
                    {
                        return c == 0 ? p : p + 1;
                    }
                    case '"', '\'' -> quote = (char)c;
                    default -> word.write(c);
                }
            }
            else if (c == 0)
            {
                throw unbalanced(); // the line, or Redis's C string, ends inside the quotes
            }
            else if (c == quote)
            {
                if (next != 0 && !blank((byte)next))
                {
                    throw unbalanced(); // "a"b: Redis refuses a closing quote that does not end the word
                }
                return p + 1;
            }
            else if (hexEscaped >= 0)
            {
                word.write(hexEscaped);
                p += 3;
            }
            else if (c == '\\' && quote == '"' && next != 0)
            {
                p++;
                word.write(switch (next)
                {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'b' -> '\b';
                    case 'a' -> 7;
                    default -> next;
                });
            }
            else if (c == '\\' && quote == '\'' && next == '\'')
            {
                p++;
                word.write('\'');
            }
            else
            {
                word.write(c);
            }
            p++;
        }
    }

    /** C's isspace, which Redis skips between words. */
    private static boolean blank(final byte b)
    {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0b || b == '\f';
    }

    /** The byte that the two hex digits at {@code i} spell ({@code \xHH}), or -1 if there are not two. */
    private static int hexByte(final ByteBuf in, final int i, final int end)
    {
        if (i + 1 >= end || !HexFormat.isHexDigit(in.getByte(i)) || !HexFormat.isHexDigit(in.getByte(i + 1)))
        {
            return -1;
        }
        return HexFormat.fromHexDigit(in.getByte(i)) << 4 | HexFormat.fromHexDigit(in.getByte(i + 1));
    }

    private static RespDecoder.RespException unbalanced()
    {
        return new RespDecoder.RespException("unbalanced quotes in request");
    }
}
