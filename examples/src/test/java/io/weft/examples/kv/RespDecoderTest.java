package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Commands decoded whole however the bytes are split, and what a client may not make a member buffer. */
@Timeout(60)
class RespDecoderTest
{
    private static final int MAX_BULK = 65_500; // the test's; weft kv passes its own (1 MiB max-payload less headers)

    @Test
    void commandsSplitAtEveryPossibleByteDecodeAsWhenTheyArriveWhole()
    {
        final List<List<String>> commands = List.of(List.of("SET", "k", "hello"), List.of("PING"),
            List.of("MGET", "a", "", "b"), List.of("SET", "bin", "a\r\nb"), List.of("GET", "k"));
        final byte[] wire = wire(commands, true);
        final EmbeddedChannel whole = channel();
        whole.writeInbound(Unpooled.wrappedBuffer(wire));
        assertEquals(commands, decoded(whole));

        for (int cut = 1; cut < wire.length; cut++)
        {
            final EmbeddedChannel split = channel();
            split.writeInbound(Unpooled.wrappedBuffer(wire, 0, cut));
            split.writeInbound(Unpooled.wrappedBuffer(wire, cut, wire.length - cut));
            assertEquals(commands, decoded(split), "split at byte " + cut);
        }

        final EmbeddedChannel bytes = channel();
        final List<List<String>> seen = new ArrayList<>();
        for (int i = 0; i < wire.length; i++)
        {
            bytes.writeInbound(Unpooled.wrappedBuffer(wire, i, 1));
            seen.addAll(decoded(bytes));
        }
        assertEquals(commands, seen, "one byte a read");
    }

    @Test
    void aManyKeyReadArrivingInRandomPartsDecodesWhole()
    {
        final List<String> mget = new ArrayList<>(List.of("MGET"));
        for (int i = 0; i < 20_000; i++)
        {
            mget.add("key-" + i + "-" + "x".repeat(60)); // about 1.4 MB: more than a write may be, less than a command
        }
        final byte[] wire = wire(List.of(mget, List.of("PING")), false);
        final EmbeddedChannel channel = channel();
        final Random random = new Random(42);
        final List<List<String>> seen = new ArrayList<>();
        for (int at = 0; at < wire.length; )
        {
            final int part = Math.min(wire.length - at, 1 + random.nextInt(4096));
            channel.writeInbound(Unpooled.wrappedBuffer(wire, at, part));
            at += part;
            seen.addAll(decoded(channel));
        }
        assertEquals(List.of(mget, List.of("PING")), seen);
    }

    @Test
    void aCommandLongerThanTheLimitIsRefusedBeforeTheMemberBuffersIt()
    {
        final EmbeddedChannel channel = channel();
        channel.writeInbound(buffer("*1048576\r\n"));
        final byte[] bulk = ("$65000\r\n" + "v".repeat(65_000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        long sent = 0;
        DecoderException refused = null;
        while (refused == null && sent < 64L * 1024 * 1024)
        {
            try
            {
                channel.writeInbound(Unpooled.wrappedBuffer(bulk));
                sent += bulk.length;
            }
            catch (final DecoderException ex)
            {
                refused = ex;
            }
        }
        assertTrue(refused != null, "64 MiB of one command taken without a refusal");
        assertTrue(sent <= RespDecoder.MAX_COMMAND, "refused only after " + sent + " bytes");
        assertTrue(refused.getMessage().contains("command longer than " + RespDecoder.MAX_COMMAND + " bytes"),
            refused.getMessage());
    }

    @Test
    void lengthsAndMalformedLinesGetRedisProtocolErrors()
    {
        // 2^64 + 1 would wrap to 1 in a long: refused, as Redis refuses a length that overflows
        assertRefused("*18446744073709551617\r\n", "invalid multibulk length");
        assertRefused("*1\r\n$18446744073709551619\r\nabc\r\n", "invalid bulk length");
        assertRefused("*1048577\r\n", "invalid multibulk length 1048577");
        assertRefused("*1\r\n$65501\r\n", "invalid bulk length 65501 (this store takes commands up to 65500 bytes)");
        assertRefused("*1\r\n$-1\r\n", "invalid bulk length -1");
        assertRefused("*1\r\n:5\r\n", "expected '$', got ':'");
        assertRefused("*1\r\n$3\r\nabcde\r\n", "bulk string not terminated by CRLF");
        assertRefused("*12a\r\n", "invalid multibulk length");
        assertRefused("x".repeat(RespDecoder.MAX_INLINE), "too big inline request");

        final EmbeddedChannel empty = channel(); // empty and null arrays, blank inline lines: nothing, as Redis
        empty.writeInbound(buffer("*0\r\n*-1\r\n\r\n   \r\n*1\r\n$4\r\nPING\r\n"));
        assertEquals(List.of(List.of("PING")), decoded(empty));
    }

    /**
     * An inline line is split as Redis splits it: quotes group words, double quotes take escapes, single quotes only
     * \', a word's bytes are kept as sent; a quote left open or not ending its word is Redis's protocol error. Each
     * case is what redis-server 7.0.15 echoed for the same line.
     */
    @Test
    void inlineCommandsSplitAsRedisSplitsThem()
    {
        final EmbeddedChannel channel = channel();
        channel.writeInbound(buffer("ECHO \"a b\"\r\nECHO 'it\\'s'\r\nECHO \"\\x41\\x4a\\n\\t\\\\\\\"q\"\r\n" +
            "ECHO \"\\xZZ\"\r\nECHO 'a\\nb'\r\nECHO x\"y z\"\r\nECHO \"\"\r\n  ECHO   spaced  \r\nECHO \"\\q\"\n"));
        assertEquals(List.of(List.of("ECHO", "a b"), List.of("ECHO", "it's"), List.of("ECHO", "AJ\n\t\\\"q"),
            List.of("ECHO", "xZZ"), List.of("ECHO", "a\\nb"), List.of("ECHO", "xy z"), List.of("ECHO", ""),
            List.of("ECHO", "spaced"), List.of("ECHO", "q")), decoded(channel));
        final byte[] raw = {'E', 'C', 'H', 'O', ' ', (byte)0xc3, (byte)0xa9, (byte)0xff, '\r', '\n'};
        channel.writeInbound(Unpooled.wrappedBuffer(raw));
        @SuppressWarnings("unchecked")
        final List<byte[]> bytes = (List<byte[]>)channel.readInbound();
        assertArrayEquals(new byte[] {(byte)0xc3, (byte)0xa9, (byte)0xff}, bytes.get(1), "not UTF-8: kept as sent");
        for (final String open : List.of("ECHO \"a\"b\r\n", "ECHO \"open\r\n", "ECHO 'open\r\n"))
        {
            assertRefused(open, "unbalanced quotes in request");
        }
    }

    private static void assertRefused(final String wire, final String reason)
    {
        final EmbeddedChannel channel = channel();
        final DecoderException ex = assertThrows(DecoderException.class, () -> channel.writeInbound(buffer(wire)));
        assertTrue(ex.getCause() instanceof RespDecoder.RespException, wire + ": " + ex);
        assertTrue(ex.getCause().getMessage().startsWith(reason), wire + ": " + ex.getCause().getMessage());
    }

    private static EmbeddedChannel channel()
    {
        return new EmbeddedChannel(new RespDecoder(MAX_BULK, () -> false)); // a connection that needs no password
    }

    private static ByteBuf buffer(final String s)
    {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Until its connection authenticates a command has at most 10 arguments of 16 KiB, as in Redis 7; commands are
     * decoded one at a time then, so a pipelined AUTH lifts the limits for the command after it in the same read.
     */
    @Test
    void anUnauthenticatedConnectionSendsSmallCommandsOnly()
    {
        final boolean[] in = {false};
        final List<List<String>> seen = new ArrayList<>();
        final EmbeddedChannel channel = new EmbeddedChannel(new RespDecoder(MAX_BULK, () -> !in[0]),
            new io.netty.channel.ChannelInboundHandlerAdapter()
            {
                @Override
                @SuppressWarnings("unchecked")
                public void channelRead(final io.netty.channel.ChannelHandlerContext ctx, final Object msg)
                {
                    final List<String> command = ((List<byte[]>)msg).stream().map(a -> new String(a,
                        StandardCharsets.UTF_8)).toList();
                    seen.add(command);
                    in[0] |= command.getFirst().equals("AUTH"); // as the connection sets it before the next read
                }
            });
        final List<String> big = List.of("SET", "k", "v".repeat(RespDecoder.UNAUTHENTICATED_BULK + 1));
        channel.writeInbound(Unpooled.wrappedBuffer(wire(List.of(List.of("GET", "k"), List.of("AUTH", "p"), big,
            List.of("PING")), true)));
        assertEquals(List.of(List.of("GET", "k"), List.of("AUTH", "p"), big, List.of("PING")), seen);

        in[0] = false;
        final DecoderException many = assertThrows(DecoderException.class, () -> channel.writeInbound(Unpooled
            .wrappedBuffer(wire(List.of(java.util.Collections.nCopies(11, "a")), false))));
        assertEquals("unauthenticated multibulk length", many.getCause().getMessage());
        final EmbeddedChannel other = new EmbeddedChannel(new RespDecoder(MAX_BULK, () -> true));
        final DecoderException longer = assertThrows(DecoderException.class, () -> other.writeInbound(
            Unpooled.wrappedBuffer(wire(List.of(big), false))));
        assertEquals("unauthenticated bulk length", longer.getCause().getMessage());
        final EmbeddedChannel fits = new EmbeddedChannel(new RespDecoder(MAX_BULK, () -> true));
        fits.writeInbound(Unpooled.wrappedBuffer(wire(List.of(java.util.Collections.nCopies(10, "a"),
            List.of("SET", "k", "v".repeat(RespDecoder.UNAUTHENTICATED_BULK))), false)));
        assertEquals(2, decoded(fits).size(), "10 arguments, 16 KiB: taken");
    }

    /** The commands as RESP arrays, as {@link RespWriter} writes them; with {@code inlinePing}, PING as a line. */
    private static byte[] wire(final List<List<String>> commands, final boolean inlinePing)
    {
        final ByteBuf out = Unpooled.buffer();
        for (final List<String> c : commands)
        {
            if (inlinePing && c.equals(List.of("PING")))
            {
                out.writeBytes("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                continue;
            }
            RespWriter.write(out, new Reply.Array(c.stream().map(a -> (Reply)Reply.Bulk.of(a)).toList()), false);
        }
        return ByteBufUtil.getBytes(out);
    }

    @SuppressWarnings("unchecked")
    private static List<List<String>> decoded(final EmbeddedChannel channel)
    {
        final List<List<String>> commands = new ArrayList<>();
        for (Object m = channel.readInbound(); m != null; m = channel.readInbound())
        {
            commands.add(((List<byte[]>)m).stream().map(a -> new String(a, StandardCharsets.UTF_8)).toList());
        }
        return commands;
    }
}
