package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes replies in RESP2 or RESP3 straight into an outgoing buffer: every reply ready in one drain goes out in one
 * buffer and one write. (Netty's {@code RedisEncoder} takes a message object per reply and a pipeline pass for each;
 * with pipelined clients that was a third of the event loop's time, measured with JFR.)
 */
final class RespWriter
{
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TXT = "txt:".getBytes(StandardCharsets.US_ASCII);

    private RespWriter()
    {
    }

    /** Writes {@code reply} in RESP3 ({@code resp3}: after {@code HELLO 3}) or RESP2. */
    static void write(final ByteBuf out, final Reply reply, final boolean resp3)
    {
        switch (reply)
        {
            case Reply.Bulk b when b.bytes() == null && resp3 -> out.writeBytes(NULL);
            case Reply.Array a when a.items() == null && resp3 -> out.writeBytes(NULL);
            case Reply.Map m ->
            {
                number(out, resp3 ? '%' : '*', resp3 ? m.keysAndValues().size() / 2 : m.keysAndValues().size());
                for (final Reply item : m.keysAndValues())
                {
                    write(out, item, resp3);
                }
            }
            case Reply.Pairs p when resp3 -> write(out, new Reply.Map(p.keysAndValues()), true);
            case Reply.Pairs p ->
            {
                final List<Reply> flat = p.keysAndValues();
                number(out, '*', flat.size() / 2);
                for (int i = 0; i < flat.size(); i += 2)
                {
                    items(out, '*', flat.subList(i, i + 2), false);
                }
            }
            case Reply.Push p -> items(out, resp3 ? '>' : '*', p.items(), resp3);
            case Reply.Set m -> items(out, resp3 ? '~' : '*', m.items(), resp3);
            case Reply.Double d when resp3 -> line(out, ',', d.text());
            case Reply.Double d ->
            {
                final String text = d.text();
                number(out, '$', text.length());
                out.writeCharSequence(text, StandardCharsets.US_ASCII);
                out.writeBytes(CRLF);
            }
            case Reply.Scored s when resp3 ->
            {
                final List<Reply> flat = s.membersAndScores();
                number(out, '*', flat.size() / 2);
                for (int i = 0; i < flat.size(); i += 2)
                {
                    items(out, '*', flat.subList(i, i + 2), true);
                }
            }
            case Reply.Scored s -> items(out, '*', s.membersAndScores(), false);
            case Reply.Several s ->
            {
                for (final Reply r : s.replies())
                {
                    write(out, r, resp3);
                }
            }
            case Reply.Simple s when s == Reply.OK -> out.writeBytes(OK);
            case Reply.Simple s -> line(out, '+', s.text());
            case Reply.Error e -> line(out, '-', e.text().replace('\r', ' ').replace('\n', ' '));
            case Reply.Int i -> number(out, ':', i.value());
            case Reply.Bulk b ->
            {
                if (b.bytes() == null)
                {
                    out.writeBytes(NULL_BULK);
                }
                else
                {
                    number(out, '$', b.bytes().length);
                    out.writeBytes(b.bytes()).writeBytes(CRLF);
                }
            }
            case Reply.Text t -> text(out, t.text(), resp3);
            case Reply.Array a ->
            {
                if (a.items() == null)
                {
                    out.writeBytes(NULL_ARRAY);
                }
                else
                {
                    items(out, '*', a.items(), resp3);
                }
            }
        }
    }

    /** An aggregate of {@code type}: its count, then each item. */
    private static void items(final ByteBuf out, final char type, final List<Reply> items, final boolean resp3)
    {
        number(out, type, items.size());
        for (final Reply item : items)
        {
            write(out, item, resp3);
        }
    }

    /** Verbatim in RESP3: its length counts the format and its colon ({@code txt:}). */
    private static void text(final ByteBuf out, final String text, final boolean resp3)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        number(out, resp3 ? '=' : '$', resp3 ? bytes.length + TXT.length : bytes.length);
        if (resp3)
        {
            out.writeBytes(TXT);
        }
        out.writeBytes(bytes).writeBytes(CRLF);
    }

    private static void line(final ByteBuf out, final char type, final String text)
    {
        out.writeByte(type).writeCharSequence(text, StandardCharsets.UTF_8);
        out.writeBytes(CRLF);
    }

    private static void number(final ByteBuf out, final char type, final long value)
    {
        out.writeByte(type);
        if (value >= 0 && value < 10)
        {
            out.writeByte('0' + (int)value);
        }
        else
        {
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
        }
        out.writeBytes(CRLF);
    }
}
