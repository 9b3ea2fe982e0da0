package io.weft.examples.kv;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads an RDB file, redis-server's snapshot (RDB versions 1 to 12, Redis 7.4's), into a running store through a
 * member's Redis port: each key as {@code RESTORE key ttl payload ABSTTL REPLACE}, its payload the value's bytes as
 * the file holds them, sealed as DUMP seals one, so it travels through the group like any write and every member
 * applies it (and logs it, with logs). The whole file is read and checked first (its CRC-64, every value as RESTORE
 * reads it), so a damaged file, or one holding what this store does not keep (a database other than 0, a module's
 * value, functions), loads nothing and says what and where. Keys the file holds already expired are left out. The
 * file is read into memory: at most 2 GiB.
 */
public final class RdbImport
{
    /** Commands sent before their replies are read: this many, or as many as make {@link #WINDOW_BYTES}. */
    private static final int WINDOW = 4096;
    private static final long WINDOW_BYTES = 8L << 20;
    private static final byte[] RESTORE = "RESTORE".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ABSTTL = "ABSTTL".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLACE = "REPLACE".getBytes(StandardCharsets.US_ASCII);

    /** A key of the file: its name, its expiry (epoch milliseconds, 0: none) and its RESTORE payload. */
    record Entry(byte[] key, long expireAt, byte[] payload)
    {
    }

    /** What a load did: keys restored, keys left out as expired, and the refusals (a key and its error). */
    public record Outcome(int loaded, int expired, List<String> refused)
    {
    }

    private RdbImport()
    {
    }

    /**
     * Loads {@code file} into the member at {@code host}:{@code port}, after AUTH with {@code password} (null: none).
     *
     * @throws IllegalArgumentException the file is no RDB file this store loads, naming why and where.
     * @throws IOException              the file or the connection failed.
     */
    public static Outcome load(final Path file, final String host, final int port, final String password)
        throws IOException
    {
        final List<Entry> entries = parse(Files.readAllBytes(file));
        final long now = System.currentTimeMillis();
        final List<String> refused = new ArrayList<>();
        int loaded = 0;
        int expired = 0;
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(host, port), 10_000);
            final OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
            final InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            if (password != null)
            {
                command(out, "AUTH".getBytes(StandardCharsets.US_ASCII), password.getBytes(StandardCharsets.UTF_8));
                out.flush();
                final String auth = reply(in);
                if (!auth.equals("OK"))
                {
                    throw new IOException("AUTH was refused: " + auth);
                }
            }
            final long limit = limit(out, in);
            final List<Entry> sent = new ArrayList<>(WINDOW);
            long sentBytes = 0;
            for (final Entry e : entries)
            {
                if (e.expireAt != 0 && e.expireAt <= now)
                {
                    expired++;
                    continue;
                }
                final byte[] ttl = Long.toString(e.expireAt).getBytes(StandardCharsets.US_ASCII);
                // as the member counts a command: its words' bytes, 4 more each
                final long bytes = RESTORE.length + e.key.length + ttl.length + e.payload.length + ABSTTL.length +
                    REPLACE.length + 4 * 6;
                if (bytes > limit)
                {
                    refused.add(Commands.text(e.key) + ": its RESTORE of " + bytes + " bytes passes the member's " +
                        "limit of " + limit + " bytes for a command (proto-max-bulk-len)");
                    continue;
                }
                command(out, RESTORE, e.key, ttl, e.payload, ABSTTL, REPLACE);
                sent.add(e);
                sentBytes += bytes;
                if (sent.size() == WINDOW || sentBytes >= WINDOW_BYTES)
                {
                    loaded += replies(out, in, sent, refused);
                    sentBytes = 0;
                }
            }
            loaded += replies(out, in, sent, refused);
        }
        return new Outcome(loaded, expired, refused);
    }

    /**
     * Sends what {@code out} holds and reads the replies to the RESTOREs of {@code sent}, which it empties: how many
     * loaded; each refusal goes to {@code refused}.
     */
    private static int replies(final OutputStream out, final InputStream in, final List<Entry> sent,
        final List<String> refused) throws IOException
    {
        out.flush();
        int loaded = 0;
        for (final Entry e : sent)
        {
            final String r = reply(in);
            if (r.equals("OK"))
            {
                loaded++;
            }
            else
            {
                refused.add(Commands.text(e.key) + ": " + r);
            }
        }
        sent.clear();
        return loaded;
    }

    /** The member's limit on a command's bytes (CONFIG GET proto-max-bulk-len); Redis's 512 MB if it has none. */
    private static long limit(final OutputStream out, final InputStream in) throws IOException
    {
        command(out, "CONFIG".getBytes(StandardCharsets.US_ASCII), "GET".getBytes(StandardCharsets.US_ASCII),
            "proto-max-bulk-len".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        final String head = line(in);
        if (head.startsWith("-NOAUTH"))
        {
            throw new IOException("the member asks for a password: " + head.substring(1));
        }
        if (!head.equals("*2"))
        {
            return 512L << 20; // a redis-server whose CONFIG is renamed away: its own limit
        }
        line(in); // $18
        line(in); // proto-max-bulk-len
        line(in); // $n
        return Long.parseLong(line(in));
    }

    /** The keys of an RDB file, checked whole before any is sent. */
    static List<Entry> parse(final byte[] file)
    {
        if (file.length < 9 || !new String(file, 0, 9, StandardCharsets.US_ASCII).matches("REDIS[0-9]{4}"))
        {
            throw new IllegalArgumentException("not an RDB file: it does not start with REDIS and a version");
        }
        final int version = Integer.parseInt(new String(file, 5, 4, StandardCharsets.US_ASCII));
        if (version < 1 || version > DumpPayload.NEWEST)
        {
            throw new IllegalArgumentException("RDB version " + version + ": this store reads versions 1 to " +
                DumpPayload.NEWEST + " (Redis 7.4's)");
        }
        checksum(file, version);
        final RdbReader r = new RdbReader(file, 9, file.length);
        final Keyspace scratch = new Keyspace(); // where values are made as they are checked, then dropped
        final List<Entry> entries = new ArrayList<>();
        long expireAt = 0;
        try
        {
            while (true)
            {
                final int at = r.position();
                final int op = r.u8();
                switch (op)
                {
                    case 0xFF ->
                    {
                        return entries;
                    }
                    case 0xFE -> database(r.length(), at);
                    case 0xFD -> expireAt = r.littleEndian(4) * 1000;
                    case 0xFC -> expireAt = r.littleEndian(8);
                    case 0xFB ->
                    {
                        r.length();
                        r.length();
                    }
                    case 0xFA ->
                    {
                        r.string();
                        r.string();
                    }
                    case 0xF9 -> r.u8(); // LFU frequency
                    case 0xF8 -> r.length(); // LRU idle time
                    case 0xF7 -> throw refused("a module's auxiliary data", at);
                    case 0xF6, 0xF5 -> throw refused("a function library (FUNCTION LOAD)", at);
                    default ->
                    {
                        entries.add(entry(file, r, op, version, expireAt, scratch));
                        expireAt = 0;
                    }
                }
            }
        }
        catch (final RdbReader.Malformed ex)
        {
            throw new IllegalArgumentException("the file is damaged, or holds a value this store does not keep " +
                "(a module's), at or after byte " + r.position() + " (key " + entries.size() + ")");
        }
    }

    /** A key's entry: its name, then its value of RDB type {@code type}, checked as RESTORE reads it. */
    private static Entry entry(final byte[] file, final RdbReader r, final int type, final int version,
        final long expireAt, final Keyspace scratch)
    {
        final byte[] key = r.string();
        final int from = r.position();
        DumpPayload.check(type, r, scratch);
        final RdbWriter payload = new RdbWriter();
        payload.write(type);
        payload.write(file, from, r.position() - from);
        return new Entry(key, expireAt, payload.seal(version));
    }

    private static void database(final long db, final int at)
    {
        if (db != 0)
        {
            throw new IllegalArgumentException("the file holds keys of database " + db + " (byte " + at + "): " +
                "this store has database 0 alone");
        }
    }

    /** Checks the CRC-64 that ends a file of RDB 5 or later (0: written with rdbchecksum no), before anything else. */
    private static void checksum(final byte[] file, final int version)
    {
        if (version < 5)
        {
            return;
        }
        if (file.length < 9 + 1 + 8) // the header, the end mark, the CRC
        {
            throw new IllegalArgumentException("the file ends before its end mark and CRC-64: it is cut short");
        }
        final long stored = new RdbReader(file, file.length - 8, file.length).littleEndian(8);
        if (stored != 0 && Crc64.of(file, 0, file.length - 8) != stored)
        {
            throw new IllegalArgumentException("the file's CRC-64 does not match its bytes: it is damaged");
        }
    }

    private static IllegalArgumentException refused(final String what, final int at)
    {
        return new IllegalArgumentException("the file holds " + what + " at byte " + at + ", which this store " +
            "does not keep: nothing was loaded");
    }

    private static void command(final OutputStream out, final byte[]... words) throws IOException
    {
        out.write(('*' + Integer.toString(words.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (final byte[] w : words)
        {
            out.write(('$' + Integer.toString(w.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(w);
            out.write('\r');
            out.write('\n');
        }
    }

    /** A status or error reply's text (RESTORE's and AUTH's are no other kind). */
    private static String reply(final InputStream in) throws IOException
    {
        final String text = line(in);
        return text.startsWith("+") || text.startsWith("-") ? text.substring(1) : "unexpected reply " + text;
    }

    /** A line of the reply, without its CRLF. */
    private static String line(final InputStream in) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n')
        {
            if (b < 0)
            {
                throw new IOException("the member closed the connection");
            }
            line.append((char)b);
        }
        return line.toString().strip();
    }
}
