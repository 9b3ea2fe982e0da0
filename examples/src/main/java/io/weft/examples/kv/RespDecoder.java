package io.weft.examples.kv;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Decodes client commands straight into argument lists ({@code List<byte[]>}): RESP arrays of bulk strings, and
 * inline commands (a line of words, as typed into telnet). A command is taken only once all of it has arrived; the
 * arguments of an array that arrives in parts are kept as they complete, so each byte is read once however many
 * reads bring the command. Limits are checked as each length is read, before anything is buffered for it: at most
 * {@value #MAX_ARGUMENTS} arguments, bulk strings up to the store's command limit, a whole command (its arguments'
 * bytes plus 4 per argument, as {@link Command} counts) up to {@value #MAX_COMMAND} bytes or that limit if larger,
 * inline lines up to {@value #MAX_INLINE} bytes; a violation or malformed input fails with Redis's protocol-error
 * text (the connection answers it and closes). Until its connection authenticates (a store with a password,
 * {@link DefaultUser}) a command may have {@value #UNAUTHENTICATED_ARGUMENTS} arguments of {@value
 * #UNAUTHENTICATED_BULK} bytes at most, as in Redis 7, and one is decoded at a time, so that a pipelined AUTH counts
 * for the commands after it.
 *
 * <p>Why not Netty's {@code RedisDecoder} with its aggregators, which this replaced: they produce one message object
 * per array header, bulk header and bulk content, and aggregate them through two more handlers; with pipelined
 * clients that chain was about half of the event loop's samples (JFR, 1 member, redis-benchmark -P 16), and the
 * event loop was the bottleneck.
 */
final class RespDecoder extends ByteToMessageDecoder
{
    static final int MAX_ARGUMENTS = 1 << 20;
    static final int MAX_INLINE = 64 * 1024;
    /**
     * A command's bytes at the most: a multi-key read (MGET, EXISTS) may exceed a write's limit, but one client must
     * not fill the member's heap with a command that never ends (Redis bounds a client's query buffer too).
     */
    static final int MAX_COMMAND = 16 * 1024 * 1024;
    /** Digits a length may have: more could overflow a long into a length that looks valid. */
    private static final int MAX_DIGITS = 18;
    private static final int INITIAL_ARGUMENTS = 16;
    static final int UNAUTHENTICATED_ARGUMENTS = 10;
    static final int UNAUTHENTICATED_BULK = 16 * 1024;

    private final int maxBulk;
    /** Whether the connection has yet to authenticate: then a stranger's command is small, whatever it claims. */
    private final BooleanSupplier unauthenticated;
    private final long maxCommand;
    private List<byte[]> args; // the array being decoded: its arguments so far; null between arrays
    private long missing;      // arguments it still lacks
    private long bytes;        // what it holds so far, as Command counts

    /** A decoder that limits commands while {@code unauthenticated} holds. */
    RespDecoder(final int maxBulk, final BooleanSupplier unauthenticated)
    {
        this.maxBulk = maxBulk;
        this.maxCommand = Math.max(MAX_COMMAND, maxBulk + 4L);
        this.unauthenticated = unauthenticated;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        while (in.isReadable())
        {
            if (args == null)
            {
                final int start = in.readerIndex();
                if (in.getByte(start) != '*')
                {
                    final List<byte[]> command = inline(in);
                    if (command == null)
                    {
                        return; // incomplete: wait for more bytes
                    }
                    if (!command.isEmpty())
                    {
                        out.add(command);
                        if (unauthenticated.getAsBoolean())
                        {
                            return; // the connection runs it before the next is read: it may be AUTH
                        }
                    }
                    continue;
                }
                in.skipBytes(1);
                final long n = number(in, "multibulk length");
                if (n == Long.MIN_VALUE)
                {
                    in.readerIndex(start);
                    return;
                }
                if (n > MAX_ARGUMENTS)
                {
                    throw new RespException("invalid multibulk length " + n);
                }
                if (n > UNAUTHENTICATED_ARGUMENTS && unauthenticated.getAsBoolean())
                {
                    throw new RespException("unauthenticated multibulk length");
                }
                if (n <= 0)
                {
                    continue; // an empty or null array: nothing to do, as Redis
                }
                args = new ArrayList<>((int)Math.min(n, INITIAL_ARGUMENTS)); // grows as they come, not on a claim
                missing = n;
                bytes = 0;
            }
            if (!bulks(in))
            {
                return;
            }
            out.add(args);
            args = null;
            if (unauthenticated.getAsBoolean())
            {
                return; // the connection runs it before the next is read: it may be AUTH
            }
        }
    }

    /** Reads the current array's bulk strings that have arrived whole; true once it has all of them. */
    private boolean bulks(final ByteBuf in)
    {
        while (missing > 0)
        {
            final int start = in.readerIndex();
            if (!in.isReadable())
            {
                return false;
            }
            final byte type = in.readByte();
            if (type != '$')
            {
                throw new RespException("expected '$', got '" + (char)type + "'");
            }
            final long length = number(in, "bulk length");
            if (length == Long.MIN_VALUE)
            {
                in.readerIndex(start);
                return false;
            }
            if (length > UNAUTHENTICATED_BULK && unauthenticated.getAsBoolean())
            {
                throw new RespException("unauthenticated bulk length");
            }
            if (length < 0 || length > maxBulk)
            {
                throw new RespException("invalid bulk length " + length + (length > maxBulk ?
                    " (this store takes commands up to " + maxBulk + " bytes)" : ""));
            }
            if (bytes + length + 4 > maxCommand)
            {
                throw new RespException("command longer than " + maxCommand + " bytes (" + args.size() +
                    " arguments of " + bytes + " bytes, then one of " + length + ")");
            }
            if (in.readableBytes() < length + 2)
            {
                in.readerIndex(start);
                return false;
            }
            final byte[] arg = new byte[(int)length];
            in.readBytes(arg);
            if (in.readByte() != '\r' || in.readByte() != '\n')
            {
                throw new RespException("bulk string not terminated by CRLF");
            }
            args.add(arg);
            bytes += length + 4;
            missing--;
        }
        return true;
    }

    /** A decimal number ending in CRLF; {@link Long#MIN_VALUE} if the line is not complete yet. */
    private static long number(final ByteBuf in, final String what)
    {
        final int eol = in.indexOf(in.readerIndex(), Math.min(in.writerIndex(), in.readerIndex() + 24), (byte)'\n');
        if (eol < 0)
        {
            if (in.readableBytes() >= 24)
            {
                throw new RespException("invalid " + what);
            }
            return Long.MIN_VALUE;
        }
        long value = 0;
        boolean negative = false;
        int i = in.readerIndex();
        if (in.getByte(i) == '-')
        {
            negative = true;
            i++;
        }
        if (i >= eol - 1 || in.getByte(eol - 1) != '\r' || eol - 1 - i > MAX_DIGITS)
        {
            throw new RespException("invalid " + what);
        }
        for (; i < eol - 1; i++)
        {
            final byte b = in.getByte(i);
            if (b < '0' || b > '9')
            {
                throw new RespException("invalid " + what);
            }
            value = value * 10 + (b - '0');
        }
        in.readerIndex(eol + 1);
        return negative ? -value : value;
    }

    private static List<byte[]> inline(final ByteBuf in)
    {
        final int eol = in.indexOf(in.readerIndex(), Math.min(in.writerIndex(), in.readerIndex() + MAX_INLINE),
            (byte)'\n');
        if (eol < 0)
        {
            if (in.readableBytes() >= MAX_INLINE)
            {
                throw new RespException("too big inline request");
            }
            return null;
        }
        final int start = in.readerIndex();
        final int length = eol > start && in.getByte(eol - 1) == '\r' ? eol - 1 - start : eol - start; // as Redis
        final List<byte[]> args = InlineArgs.split(in, start, length);
        in.readerIndex(eol + 1);
        return args;
    }

    /** Bytes that are not the protocol: the message is Redis's protocol-error text. */
    static final class RespException extends RuntimeException
    {
        RespException(final String message)
        {
            super(message, null, false, false);
        }
    }
}
