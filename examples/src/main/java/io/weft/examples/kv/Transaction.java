package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A connection's MULTI: the store commands queued until EXEC, which sends them as one write: {@code EXEC}; if keys are
 * watched, {@code WATCHED}, their count and each one's key, version and whether it was live then ({@link
 * Watch}); then each command's argument count and arguments. Every member applies that write whole, in the group's
 * order, so no other client's command comes between two of a transaction's, and each makes the same decision on the
 * watched keys ({@link KeyVersions}): all commands apply, or none and the reply is nil. A command refused while
 * queuing (unknown, its subcommand unknown, not one a transaction takes, past the size a write may take) makes EXEC
 * discard them all. The
 * connection commands Redis queues too ({@link #ANSWERED_AT_EXEC}) stay at the connection, which answers them in their
 * places once the store's reply is in ({@link #answer}), after the store's commands applied; so does an EVALSHA of a
 * script the member does not know, NOSCRIPT in its place, unless the transaction loads it first ({@link #withBody}).
 */
final class Transaction
{
    /** The connection commands a transaction queues, answered by its connection at EXEC. */
    static final Set<String> ANSWERED_AT_EXEC = Set.of("INFO", "CONFIG", "COMMAND", "CLIENT", "WAIT", "SCRIPT",
        "PUBSUB", "UNWATCH", "AUTH", "ACL", "ROLE", "SLOWLOG", "LATENCY", "LASTSAVE", "REPLCONF");
    static final byte[] EXEC = "EXEC".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WATCHED = "WATCHED".getBytes(StandardCharsets.US_ASCII);
    static final Reply QUEUED = new Reply.Simple("QUEUED");
    private static final byte[] LIVE = {'1'};
    private static final byte[] ABSENT = {'0'};

    /**
     * A key a connection watches: the version up to which this member had applied every change when WATCH read it
     * ({@link KeyVersions#applied}) and whether it was live then (a key that expires before EXEC counts as changed, as
     * in Redis 7).
     */
    record Watch(byte[] key, long version, boolean live)
    {
        /** The bytes this watch adds to an EXEC write. */
        int bytes()
        {
            return 4 + key.length + 4 + Long.toString(version).length() + 4 + 1;
        }
    }

    /** An EXEC write read back: its watched keys (none for a transaction without WATCH) and its commands. */
    record Parsed(List<Watch> watches, List<List<byte[]>> commands)
    {
    }

    /**
     * A connection command queued {@code at} this place among the transaction's commands, with the reply it gets
     * whatever runs, or null: the connection's answer then.
     */
    private record AtExec(int at, List<byte[]> args, Reply answer)
    {
    }

    private final List<byte[]> exec = new ArrayList<>();
    private final List<AtExec> atExec = new ArrayList<>(0);
    /** The reply EXEC writes when the transaction has connection commands; null while it has none. */
    private Command reply;
    private int queued;
    private final int maxBytes;
    /** The write's bytes as {@link Command} counts them. */
    private int bytes = 4 + 4 + EXEC.length;
    private boolean refused;
    /** The scripts this transaction's SCRIPT LOADs queued so far load, by SHA-1 (lower case). */
    private final Map<String, byte[]> loads = new HashMap<>(0);
    /** Whether a SCRIPT FLUSH is queued: an EVALSHA after it finds only the scripts loaded after it. */
    private boolean flushed;
    /**
     * The scripts of the EVALs queued so far, not compiled yet; hashed into {@link #evals} only when an EVALSHA this
     * member does not know is queued (an EVALSHA it knows travels as an EVAL too: hashing each would cost it).
     */
    private final List<byte[]> evalScripts = new ArrayList<>(0);
    private final Map<String, byte[]> evals = new HashMap<>(0);
    /** The words of the EVALSHA {@link #withBody} made an EVAL of last, for the command queued next; else null. */
    private List<byte[]> sentNext;
    /** {@link Command#sent} of the EXEC: null until an EVALSHA is queued going as EVAL. */
    private List<List<byte[]>> sent;

    /**
     * A transaction whose EXEC may take at most {@code maxBytes} (a write's limit, see {@link KvReplica}), checked at
     * EXEC against {@code watches}.
     */
    Transaction(final int maxBytes, final Collection<Watch> watches)
    {
        this.maxBytes = maxBytes;
        exec.add(EXEC);
        if (!watches.isEmpty())
        {
            exec.add(WATCHED);
            exec.add(ascii(watches.size()));
            bytes += 4 + WATCHED.length + 4 + exec.getLast().length;
            for (final Watch w : watches)
            {
                exec.add(w.key());
                exec.add(ascii(w.version()));
                exec.add(w.live() ? LIVE : ABSENT);
                bytes += w.bytes();
            }
        }
    }

    private static byte[] ascii(final long n)
    {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Queues the command {@code cmd} (upper case) with its words {@code args}, or refuses it with Redis's checks, in
     * their order ({@link CommandTable#refusal}: unknown, an unknown subcommand, a wrong count of words), then: one a
     * transaction here does not take, past the write's limit.
     */
    Reply offer(final String cmd, final List<byte[]> args)
    {
        return offer(cmd, args, null);
    }

    /**
     * {@link #offer(String, List)}, for a command whose reply in EXEC's is {@code answer} whatever runs (null: none
     * such), as Redis's NOSCRIPT for an EVALSHA of a script this member does not know.
     */
    Reply offer(final String cmd, final List<byte[]> args, final Reply answer)
    {
        final Reply.Error refused = CommandTable.refusal(cmd, args);
        if (refused != null)
        {
            return refuse(refused.text());
        }
        if (cmd.equals("CLIENT") && Commands.is(args.get(1), "REPLY"))
        {
            return refuse("ERR CLIENT REPLY inside MULTI: replies turned off at EXEC would leave its reply shorter " +
                "than its count, which no client can read");
        }
        if (RdbSaver.notInTransaction(cmd))
        {
            return refuse("ERR Command not allowed inside a transaction");
        }
        if (cmd.equals("BGSAVE")) // queued with the store's commands: scheduled at EXEC, or its syntax error there
        {
            return queue(args, RdbSaver.refusal(args));
        }
        if (cmd.equals("SSUBSCRIBE")) // queued, and refused in EXEC's reply, as Redis 7.0 does
        {
            return queue(args, Reply.error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"));
        }
        if (answer == null && !Commands.isQueued(cmd) && !ANSWERED_AT_EXEC.contains(cmd))
        {
            return refuse("ERR '" + cmd.toLowerCase(Locale.ROOT) + "' inside MULTI: a transaction here takes neither " +
                "HELLO nor the subscribe commands");
        }
        return queue(args, answer);
    }

    /** {@link #offer(String, List, Reply)} as the connection answers it: a refusal is a rejected call. */
    Command offered(final String cmd, final List<byte[]> args, final Reply answer, final boolean resp3)
    {
        final Reply reply = offer(cmd, args, answer);
        return reply instanceof Reply.Error ? Command.refused(reply, resp3) : Command.answered(reply, resp3);
    }

    /** Queues a store command, or one of {@link #ANSWERED_AT_EXEC}: its reply comes with EXEC's. */
    Reply queue(final List<byte[]> args)
    {
        return queue(args, null);
    }

    private Reply queue(final List<byte[]> args, final Reply answer)
    {
        final byte[] count = ascii(args.size());
        int more = 4 + count.length;
        for (final byte[] a : args)
        {
            more += 4 + a.length;
        }
        if (bytes + more > maxBytes) // checked as it grows: a client cannot fill the member's heap with a MULTI
        {
            return refuse("ERR the transaction would exceed the replicated store's limit of " + maxBytes +
                " bytes for one write; it is discarded at EXEC");
        }
        bytes += more; // a connection command too: it is kept until EXEC
        final String name = Commands.name(args);
        if (answer != null || ANSWERED_AT_EXEC.contains(name))
        {
            if (answer == null && name.equals("SCRIPT"))
            {
                scriptQueued(args);
            }
            atExec.add(new AtExec(queued++, args, answer));
            return QUEUED;
        }
        if (name.equals("EVAL") || name.equals("EVAL_RO"))
        {
            evalQueued(args);
        }
        if (sentNext != null) // as its client sent it, for SLOWLOG and commandstats
        {
            sent = sent != null ? sent : new ArrayList<>();
            while (sent.size() < queued - atExec.size())
            {
                sent.add(null);
            }
            sent.add(sentNext);
        }
        queued++;
        exec.add(count);
        exec.addAll(args);
        return QUEUED;
    }

    /**
     * An EVAL queued: at EXEC it caches its script, as Redis's does, before the commands after it run, unless its key
     * count is bad (Redis checks that first) or the script does not compile ({@link #withBody} checks that).
     */
    private void evalQueued(final List<byte[]> args)
    {
        try
        {
            Scripts.keyCount(args);
            evalScripts.add(args.get(1));
        }
        catch (final KvStore.SyntaxError ex)
        {
            // a bad key count: the EVAL fails at EXEC and caches nothing
        }
    }

    /**
     * {@link Scripts#withBody} for a command queued now. Redis runs a transaction's SCRIPT LOAD, SCRIPT FLUSH and
     * EVAL at EXEC in their places, so an EVALSHA after a queued SCRIPT LOAD or EVAL of its script runs it, and one
     * after a queued SCRIPT FLUSH finds only the scripts loaded after that.
     */
    List<byte[]> withBody(final Scripts scripts, final List<byte[]> args)
    {
        final List<byte[]> runs = scripts.withBody(args, sha ->
        {
            final byte[] known = loads.containsKey(sha) || flushed ? loads.get(sha) : scripts.body(sha);
            if (known == null)
            {
                evalScripts.forEach(body -> evals.putIfAbsent(Scripts.sha1(body), body));
                evalScripts.clear();
            }
            final byte[] evaluated = known == null ? evals.remove(sha) : null;
            if (evaluated != null && ScriptRuntime.compileError(evaluated) == null)
            {
                loads.put(sha, evaluated);
                return evaluated;
            }
            return known;
        });
        sentNext = runs == null || runs == args ? null : args; // queued next, or refused: the next call resets it
        return runs;
    }

    private void scriptQueued(final List<byte[]> args)
    {
        if (Scripts.flushes(args))
        {
            loads.clear();
            evalScripts.clear();
            evals.clear();
            flushed = true;
        }
        else if (Commands.word(args.get(1)).equals("LOAD") && ScriptRuntime.compileError(args.get(2)) == null)
        {
            loads.put(Scripts.sha1(args.get(2)), args.get(2));
        }
    }

    /**
     * WATCH key [key ...] of a connection that watches {@code watching}: each key not watched yet is watched from this
     * member's copy now ({@link KvReplica#watch}); refused whole past half a write's limit, since an EXEC write carries
     * its watched keys.
     */
    static Reply watch(final KvReplica replica, final Map<Key, Watch> watching, final List<byte[]> args)
    {
        final Map<Key, Watch> all = new LinkedHashMap<>(watching);
        for (final byte[] key : args.subList(1, args.size()))
        {
            all.computeIfAbsent(new Key(key), k -> replica.watch(key));
        }
        final int bytes = all.values().stream().mapToInt(Watch::bytes).sum();
        if (bytes > replica.maxCommandBytes() / 2)
        {
            return Reply.error("ERR WATCH would watch keys of " + bytes + " bytes: a transaction's write carries its " +
                "watched keys, at most " + replica.maxCommandBytes() / 2 + " bytes of them");
        }
        watching.putAll(all);
        return Reply.OK;
    }

    /** Refuses a command inside the transaction: EXEC discards it whole. */
    Reply refuse(final String error)
    {
        refused = true;
        return Reply.error(error);
    }

    /** The commands queued so far (CLIENT LIST's multi). */
    int queued()
    {
        return queued;
    }

    /** Whether EXEC must discard the transaction. */
    boolean refused()
    {
        return refused;
    }

    /**
     * The words its client sent of each store command EXEC runs, null where they are those it runs; null when all
     * are: only an EVALSHA goes as another (EVAL with its script's body).
     */
    List<List<byte[]>> sent()
    {
        return sent;
    }

    /** The write EXEC sends. */
    List<byte[]> exec()
    {
        return exec;
    }

    /**
     * The reply EXEC writes, in the protocol {@code resp3} says, once {@link #answer} sets it; null if the store's
     * reply is the whole reply (no connection command queued).
     */
    Command answeredAtExec(final boolean resp3)
    {
        return atExec.isEmpty() ? null : (reply = Command.later(resp3));
    }

    /**
     * Event loop: sets EXEC's reply from the store's (that of {@code applied}, the EXEC sent through the group): with
     * the connection's {@code answers} to its connection commands in their places when the transaction applied (an
     * array), else the store's as it is (nil: a watched key changed; an error). What it ran counts as EXEC's.
     */
    void answer(final Command applied, final Function<List<byte[]>, Reply> answers)
    {
        final Reply stored = applied.reply();
        reply.runNanos = applied.runNanos;
        reply.inner = applied.inner;
        if (!(stored instanceof Reply.Array(final List<Reply> items)) || items == null)
        {
            reply.complete(stored);
            return;
        }
        final List<Reply> all = new ArrayList<>(items.size() + atExec.size());
        int next = 0;
        for (final AtExec command : atExec)
        {
            while (all.size() < command.at)
            {
                all.add(items.get(next++));
            }
            all.add(command.answer != null ? command.answer : answers.apply(command.args));
        }
        all.addAll(items.subList(next, items.size()));
        reply.complete(new Reply.Array(all));
    }

    /**
     * An EXEC write ({@link #exec()}) read back; its commands are views of their arguments: what every member applies.
     *
     * @throws KvStore.SyntaxError the write is not one this class makes
     */
    static Parsed parse(final List<byte[]> exec)
    {
        final List<Watch> watches = new ArrayList<>();
        int i = 1;
        if (exec.size() > 2 && Arrays.equals(exec.get(1), WATCHED))
        {
            final long n = ValueEdits.integer(exec.get(2));
            if (n < 1 || n > (exec.size() - 3) / 3)
            {
                throw malformed();
            }
            for (i = 3; i < 3 + 3 * n; i += 3)
            {
                final boolean live = Arrays.equals(exec.get(i + 2), LIVE);
                watches.add(new Watch(exec.get(i), ValueEdits.integer(exec.get(i + 1)), live));
            }
        }
        final List<List<byte[]>> commands = new ArrayList<>();
        while (i < exec.size())
        {
            final long n = ValueEdits.integer(exec.get(i));
            if (n < 1 || n > exec.size() - i - 1)
            {
                throw malformed();
            }
            commands.add(exec.subList(i + 1, i + 1 + (int)n));
            i += 1 + (int)n;
        }
        return new Parsed(watches, commands);
    }

    private static KvStore.SyntaxError malformed()
    {
        return new KvStore.SyntaxError("ERR malformed EXEC write");
    }
}
