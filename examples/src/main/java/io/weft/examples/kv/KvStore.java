package io.weft.examples.kv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.weft.examples.kv.ValueEdits.integer;

/**
 * The replicated state machine: keys holding strings ({@link StringCommands}; their bits, {@link BitCommands}, or
 * HyperLogLog sketches, {@link HyperLogLogs}), hashes ({@link HashCommands}), sets ({@link SetCommands}) or lists
 * ({@link ListCommands}) or sorted sets ({@link ZSetCommands}) with optional expiry, and the Redis commands over them.
 * Every member applies the same writes in the same order with the same clock reading (the {@code now} of the batch
 * that carried them, taken at its sender), so every member holds the same state. Writes run on one thread (the
 * predicate thread, in delivery order); reads may run on others (local reads), hence concurrent maps of immutable
 * entries. Reads treat expired entries as absent; writes remove them (a write of the key, and after each batch some of
 * those that expired first: {@link #removeExpired}), so removal is deterministic too.
 */
public final class KvStore
{
    /** Expired entries removed after a batch per write it carries: more than a write can add. */
    static final int EXPIRED_PER_WRITE = 2;
    private static final Logger LOG = LoggerFactory.getLogger(KvStore.class);
    private final Keyspace map = new Keyspace();
    /** EXPIRE and the other commands on a key whatever its value. */
    private final KeyCommands keys = new KeyCommands(map);
    private final StringCommands strings = new StringCommands(map);
    /** The counters, APPEND and the ranges. */
    private final ValueEdits edits = new ValueEdits(map);
    /** SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO. */
    private final BitCommands bits = new BitCommands(map);
    /** The commands on hashes (HSET, ...), sets (SADD, ...), lists (LPUSH, ...) and sorted sets (ZADD, ...). */
    private final HashCommands hashes = new HashCommands(map);
    private final SetCommands sets = new SetCommands(map);
    private final ListCommands lists = new ListCommands(map);
    private final ZSetCommands zsets = new ZSetCommands(map);
    private final StreamCommands streams = new StreamCommands(map);
    /** EVAL and the script caches of this member. */
    final Scripts scripts = new Scripts(this);
    /** This member's clients blocked on lists and sorted sets (BLPOP, BZPOPMIN, ...), woken by the delivery thread. */
    final BlockedClients blocked = new BlockedClients(map);
    /** The subscribers of this member, whom PUBLISH hands its message (no part of the state). */
    final PubSub pubSub = new PubSub();
    /** Odd while a write changes the store: a local read sees it whole or not at all. */
    final WriteSequence sequence = new WriteSequence();
    /** The delivery thread: what an own client's EXEC or script runs is recorded here (null: nothing recorded). */
    InnerCalls counting;
    /**
     * The delivery thread: the keyspace_hits and keyspace_misses of an own client's command applying now, for the
     * lookups a command makes as it runs (SORT's BY and GET patterns); null while another member's or a log's applies.
     */
    KeyspaceLookups lookups;

    /** A value and its expiry time in epoch milliseconds, 0 for none. */
    record Entry(byte[] value, long expireAt)
    {
        boolean live(final long now)
        {
            return expireAt == 0 || expireAt > now;
        }
    }

    /** The command's first key, or null if it has none: built before its batch's lookups ({@link #touch}). */
    Key keyOf(final List<byte[]> args)
    {
        return args.size() >= 2 ? new Key(args.get(1)) : null;
    }

    /**
     * Looks up the command's first key {@code key} ({@link #keyOf}), if it has one, and changes nothing: a batch's
     * keys are built first, then looked up in a loop of lookups alone, then the commands apply, so that the lookups'
     * cache misses overlap as far as the processor reaches ahead instead of following one another. A SET replaces
     * the value without reading it, so its old value is not loaded.
     */
    void touch(final Key key, final List<byte[]> args)
    {
        map.moveAlong(); // reads too: a store that only reads after a growth would look twice for a key not moved
        if (key == null)
        {
            return;
        }
        if (Commands.isSet(args))
        {
            touchKey(key);
        }
        else
        {
            map.stored(key);
        }
    }

    /** {@link #apply(List, long)} given the command's key from {@link #keyOf}: a plain SET does not build it again. */
    Reply apply(final List<byte[]> args, final Key key, final long now)
    {
        if (key != null && args.size() == 3 && Commands.isSet(args))
        {
            set(key, args.get(2));
            return Reply.OK;
        }
        return apply(args, now);
    }

    /** The delivery thread: the write {@code args} ({@link #apply(List, Key, long)}), seen by local reads whole. */
    Reply write(final List<byte[]> args, final Key key, final long now)
    {
        sequence.begin();
        try
        {
            return apply(args, key, now);
        }
        finally
        {
            sequence.end();
        }
    }

    /** The delivery thread: {@code SET key value} without options, seen by local reads whole. */
    void write(final Key key, final byte[] value)
    {
        sequence.begin();
        map.put(key, value);
        sequence.end();
    }

    /**
     * A connection's thread: the local read {@code args} on the store between two writes ({@link WriteSequence});
     * null if writes overlapped every attempt: the read is to go through the group.
     */
    Reply readBetweenWrites(final List<byte[]> args, final long now)
    {
        for (int attempt = 0; attempt < WriteSequence.READ_ATTEMPTS; attempt++)
        {
            final long before = sequence.beforeRead();
            if ((before & 1) == 0)
            {
                final Reply reply = apply(args, now);
                if (sequence.unchanged(before))
                {
                    return reply;
                }
            }
            Thread.onSpinWait();
        }
        sequence.readOrdered();
        return null;
    }

    /** Looks up {@code key}'s slot alone, not its value: {@link #touch} for a SET, which replaces the value unread. */
    void touchKey(final Key key)
    {
        map.touchKey(key);
    }

    /** The versions WATCH compares: the delivery thread stamps each batch's and each write's. */
    KeyVersions versions()
    {
        return map.versions;
    }

    /** Any thread: the live value {@code key} holds at {@code now} as the map keeps it, or null ({@link Stored}). */
    Object stored(final Key key, final long now)
    {
        return map.liveStored(key, now);
    }

    /** Any thread: a WATCH of {@code key} now ({@link Transaction.Watch}). */
    Transaction.Watch watch(final byte[] key, final long now)
    {
        final long version = map.versions.applied(); // first: what is read next is at least this new
        return new Transaction.Watch(key, version, map.liveStored(key, now) != null);
    }

    /** {@code SET key value} without options (delivery thread, in a write). */
    private void set(final Key key, final byte[] value)
    {
        map.put(key, value);
    }

    /** Any thread: about the bytes the write {@code args} copies, after this member's edits {@code made}. */
    long copyBytes(final List<byte[]> args, final Map<Key, Long> made)
    {
        return edits.copyBytes(args, made);
    }

    /** Runs one command (a write only on the delivery thread) at clock reading {@code now}. */
    public Reply apply(final List<byte[]> args, final long now)
    {
        final String cmd = Commands.name(args);
        final int n = args.size();
        try
        {
            return switch (cmd)
            {
                case "GET", "SET", "SETNX", "GETSET", "GETDEL", "SETEX", "PSETEX", "GETEX", "MGET", "MSET", "MSETNX",
                     "STRLEN" -> strings.apply(cmd, args, now);
                case "DEL", "UNLINK" -> n < 2 ? Reply.wrongArity(cmd) : new Reply.Int(delete(args, now));
                case "EXISTS", "TOUCH" -> n < 2 ? Reply.wrongArity(cmd) : new Reply.Int(exists(args, now));
                case "INCR" -> n != 2 ? Reply.wrongArity(cmd) : edits.incrBy(args.get(1), 1, now);
                case "DECR" -> n != 2 ? Reply.wrongArity(cmd) : edits.incrBy(args.get(1), -1, now);
                case "INCRBY" -> n != 3 ? Reply.wrongArity(cmd) : edits.incrBy(args.get(1), integer(args.get(2)), now);
                case "DECRBY" -> n != 3 ? Reply.wrongArity(cmd) : edits.decrBy(args.get(1), integer(args.get(2)), now);
                case "INCRBYFLOAT" -> n != 3 ? Reply.wrongArity(cmd) : edits.incrByFloat(args.get(1), args.get(2), now);
                case "APPEND" -> n != 3 ? Reply.wrongArity(cmd) : edits.append(args.get(1), args.get(2), now);
                case "SETRANGE" -> n != 4 ? Reply.wrongArity(cmd) :
                    edits.setRange(args.get(1), integer(args.get(2)), args.get(3), now);
                case "GETRANGE", "SUBSTR" -> n != 4 ? Reply.wrongArity(cmd) :
                    edits.getRange(args.get(1), integer(args.get(2)), integer(args.get(3)), now);
                case "SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO" ->
                    bits.apply(cmd, args, now);
                case "PFADD", "PFCOUNT", "PFMERGE" ->
                    Commands.fitsArity(cmd, n) ? HyperLogLogs.apply(map, cmd, args, now) : Reply.wrongArity(cmd);
                case "LCS" -> n < 3 ? Reply.wrongArity(cmd) : Lcs.apply(map, args, now);
                case "SORT", "SORT_RO" -> n < 2 ? Reply.wrongArity(cmd) : Sort.apply(map, args, now, lookups);
                case "DUMP", "RESTORE" -> DumpPayload.apply(map, cmd, args, now);
                case "EXPIRE" -> n < 3 ? Reply.wrongArity(cmd) : keys.expire(args, 1000, false, now);
                case "PEXPIRE" -> n < 3 ? Reply.wrongArity(cmd) : keys.expire(args, 1, false, now);
                case "EXPIREAT" -> n < 3 ? Reply.wrongArity(cmd) : keys.expire(args, 1000, true, now);
                case "PEXPIREAT" -> n < 3 ? Reply.wrongArity(cmd) : keys.expire(args, 1, true, now);
                case "PERSIST" -> n != 2 ? Reply.wrongArity(cmd) : keys.persist(args.get(1), now);
                case "TTL" -> n != 2 ? Reply.wrongArity(cmd) : keys.ttl(args.get(1), now, true, false);
                case "PTTL" -> n != 2 ? Reply.wrongArity(cmd) : keys.ttl(args.get(1), now, false, false);
                case "EXPIRETIME" -> n != 2 ? Reply.wrongArity(cmd) : keys.ttl(args.get(1), now, true, true);
                case "PEXPIRETIME" -> n != 2 ? Reply.wrongArity(cmd) : keys.ttl(args.get(1), now, false, true);
                case "TYPE" -> n != 2 ? Reply.wrongArity(cmd) : keys.type(args.get(1), now);
                case "RENAME" -> n != 3 ? Reply.wrongArity(cmd) : keys.rename(args.get(1), args.get(2), false, now);
                case "RENAMENX" -> n != 3 ? Reply.wrongArity(cmd) : keys.rename(args.get(1), args.get(2), true, now);
                case "COPY" -> n < 3 ? Reply.wrongArity(cmd) : keys.copy(args, now);
                case "MEMORY" -> n < 2 ? Reply.wrongArity(cmd) : keys.memory(args, now);
                case "KEYS" -> n != 2 ? Reply.wrongArity(cmd) : keys.matching(args.get(1), now);
                case "SCAN" -> n < 2 ? Reply.wrongArity(cmd) : keys.scan(args, now);
                case "DBSIZE" -> n != 1 ? Reply.wrongArity(cmd) : new Reply.Int(size(now));
                case "RANDOMKEY" -> n != 1 ? Reply.wrongArity(cmd) : keys.randomKey(now);
                case "FLUSHDB", "FLUSHALL" -> n > 2 ? Reply.wrongArity(cmd) : flush();
                case "EXEC" -> exec(args, now);
                case "BGSAVE" -> RdbSaver.SCHEDULED; // in an EXEC: its client's member saves after it (InnerCalls)
                case "EVAL", "EVAL_RO" -> n < 3 ? Reply.wrongArity(cmd) : scripts.eval(cmd, args, now);
                case "PING", "ECHO" -> Reply.pong(cmd, args); // queued in a transaction
                case "TIME" -> n != 1 ? Reply.wrongArity(cmd) : StoreReport.time(now); // queued, or called by a script
                case "SELECT", "MOVE", "SWAPDB" -> OneDatabase.apply(cmd, args); // queued, or called by a script
                case "PUBLISH", "SPUBLISH" -> n != 3 ? Reply.wrongArity(cmd) :
                    new Reply.Int(pubSub.publish(args.get(1), args.get(2), cmd.charAt(0) == 'S'));
                default -> cmd.charAt(0) == 'S' ? sets.apply(cmd, args, now) : cmd.charAt(0) == 'H' ?
                    hashes.apply(cmd, args, now) : cmd.charAt(0) == 'Z' || cmd.startsWith("BZ") ?
                    zsets.apply(cmd, args, now) : cmd.startsWith("GEO") ? Geo.apply(map, cmd, args, now) :
                    cmd.charAt(0) == 'X' ? streams.apply(cmd, args, now) :
                    lists.apply(cmd, args, now);
            };
        }
        catch (final SyntaxError ex)
        {
            return Reply.error(ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            // A command's bug is the same at every member (the same state, arguments and clock): each replies with
            // it and goes on with the batch, where one client's command stopped every member's batch short
            LOG.error("command '{}' failed; replied with an error", Reply.lowerCase(cmd), ex);
            return Reply.internalError(cmd, ex);
        }
    }

    /**
     * The delivery thread, after a batch of {@code writes} writes at {@code now}: removes up to {@value
     * #EXPIRED_PER_WRITE} expired entries a write, those that expired first (the same at every member). Removed at this
     * pace, keys that expire faster than they are written again (a cache of sessions) cannot fill the store. Besides
     * the removals, a batch sorts out the early and stale pairs that come due ({@link ExpiryHeap}): each one left
     * behind by a write before, so that work is the writes' too, but not bounded per batch.
     */
    void removeExpired(final long now, final int writes)
    {
        sequence.begin();
        expire(now, writes);
        sequence.end();
    }

    /** {@link #removeExpired} inside a write that began already (EXEC). */
    private void expire(final long now, final int writes)
    {
        map.versions.next(); // the removals' version follows the writes'
        map.removeExpired(now, EXPIRED_PER_WRITE * writes);
    }

    /** Live keys (expired ones not yet removed are not counted). */
    public long size(final long now)
    {
        return map.live(now);
    }

    /**
     * What the entries take, estimated: their keys' and values' bytes and {@value Keyspace#ENTRY_OVERHEAD} each for
     * the rest; expired entries count until writes remove them ({@link #removeExpired}). Any thread.
     */
    public long bytes()
    {
        return map.bytes();
    }

    /** Live keys with an expiry. */
    public long expiring(final long now)
    {
        return map.liveExpiring(now);
    }

    private long delete(final List<byte[]> args, final long now)
    {
        long deleted = 0;
        for (int i = 1; i < args.size(); i++)
        {
            final Object e = map.remove(new Key(args.get(i)));
            deleted += e != null && Stored.live(e, now) ? 1 : 0;
        }
        return deleted;
    }

    private long exists(final List<byte[]> args, final long now)
    {
        long found = 0;
        for (int i = 1; i < args.size(); i++)
        {
            found += map.liveStored(args.get(i), now) != null ? 1 : 0;
        }
        return found;
    }

    /**
     * A transaction's commands in order ({@link Transaction}), nothing between them: their replies, one array; none of
     * them and a nil reply if a watched key changed since it was watched.
     */
    private Reply exec(final List<byte[]> args, final long now)
    {
        final Transaction.Parsed parsed = Transaction.parse(args);
        for (final Transaction.Watch w : parsed.watches())
        {
            // a change after the watch, or an expiry since (a removal at a write is a change already)
            final Key key = new Key(w.key());
            final Object stored = map.stored(key);
            if (map.versions.changedAfter(key, w.version()) || w.live() && !(stored != null && Stored.live(stored,
                now)))
            {
                return Reply.NIL_ARRAY;
            }
        }
        final List<List<byte[]>> commands = parsed.commands();
        final List<Reply> replies = new ArrayList<>(commands.size());
        for (final List<byte[]> command : commands)
        {
            replies.add(InnerCalls.call(this, command, now));
        }
        // the batch counts an EXEC as one write; its other commands may add expiring keys too (SETEX): their removals
        expire(now, Math.max(0, commands.size() - 1));
        return new Reply.Array(replies);
    }

    private Reply flush()
    {
        map.clear();
        return Reply.OK;
    }

    /**
     * The state as of now, to write out later (a joiner's, a log's snapshot); taken while no write runs (after the
     * last delivery of a view, or on the delivery thread).
     */
    StoreCut cut()
    {
        return map.cut();
    }

    /** Empties the store, which then takes a {@link StoreCut}'s bytes as they arrive. */
    StoreLoader loader()
    {
        return new StoreLoader(map);
    }

    /** The whole state in one array ({@link #cut}'s bytes, by key): for tests that compare stores. */
    public byte[] snapshot()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            cut().sorted().writeTo(bytes);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** A bad argument: the message is the Redis error reply. */
    static final class SyntaxError extends RuntimeException
    {
        SyntaxError(final String message)
        {
            super(message, null, false, false);
        }
    }
}
