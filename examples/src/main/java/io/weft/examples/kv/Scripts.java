package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Lua scripts (EVAL, EVALSHA, their read-only forms, SCRIPT LOAD, EXISTS, FLUSH), as Redis 7 runs them. EVAL travels
 * through the group as a write and every member runs the script on its copy, in the group's order, at the batch's
 * clock: a script whose effects depend only on the store, its keys and arguments (Redis asks the same of scripts that
 * it replicates as scripts) changes every copy alike. EVALSHA is EVAL with a body this member knows (SCRIPT LOAD here,
 * or an EVAL applied here): a connection sends the body, so a member without it never has to apply one. EVAL_RO is a
 * read, run at its origin alone, and refuses writes. The runtime is {@link ScriptRuntime}.
 */
final class Scripts
{
    static final Reply NO_SCRIPT = Reply.error("NOSCRIPT No matching script. Please use EVAL.");
    /** EVAL's scripts kept, the least recently used dropped beyond them (as Redis 7.4 does); SCRIPT LOAD's stay. */
    private static final int EVALUATED = 500;

    /** SCRIPT LOAD's scripts by SHA-1: any thread. */
    private final Map<String, byte[]> loaded = new ConcurrentHashMap<>();
    /** EVAL's scripts by SHA-1, least recently used first: any thread, under its monitor. */
    private final Map<String, byte[]> evaluated = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true)
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, byte[]> eldest)
        {
            return size() > EVALUATED;
        }
    });
    private final KvStore store;
    /** The delivery thread's Lua state, made at the first script. */
    private ScriptRuntime runtime;

    Scripts(final KvStore store)
    {
        this.store = store;
    }

    /** This member's scripts by SHA-1 (lower case). */
    private final Function<String, byte[]> known = this::body;

    /**
     * A connection's command as it goes on: EVALSHA and EVALSHA_RO as EVAL and EVAL_RO with the body this member
     * knows, any other as it is; null for an EVALSHA of a script this member does not know (NOSCRIPT).
     */
    List<byte[]> withBody(final List<byte[]> args)
    {
        return withBody(args, known);
    }

    /** {@link #withBody(List)} with the scripts {@code bodies} finds by SHA-1 (lower case). */
    List<byte[]> withBody(final List<byte[]> args, final Function<String, byte[]> bodies)
    {
        final byte[] name = args.getFirst();
        if ((name.length != 7 && name.length != 10) || (name[0] | 0x20) != 'e' || args.size() < 2 ||
            !Commands.name(args).startsWith("EVALSHA"))
        {
            return args;
        }
        final String sha = new String(args.get(1), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        final byte[] body = bodies.apply(sha);
        if (body == null)
        {
            return null;
        }
        final List<byte[]> eval = new ArrayList<>(args);
        eval.set(0, name.length == 7 ? "EVAL".getBytes(StandardCharsets.US_ASCII) :
            "EVAL_RO".getBytes(StandardCharsets.US_ASCII));
        eval.set(1, body);
        return eval;
    }

    /** The script of SHA-1 {@code sha} (lower case) this member knows, or null. */
    byte[] body(final String sha)
    {
        final byte[] body = loaded.get(sha);
        return body != null ? body : evaluated.get(sha);
    }

    /**
     * A connection: SCRIPT LOAD script, SCRIPT EXISTS sha ..., SCRIPT FLUSH [ASYNC|SYNC], this member's cache; their
     * arity checked before ({@link Subcommands}).
     */
    Reply script(final List<byte[]> args)
    {
        switch (Commands.word(args.get(1)))
        {
            case "LOAD" ->
            {
                final String sha = sha1(args.get(2));
                final String error = ScriptRuntime.compileError(args.get(2));
                if (error != null)
                {
                    return Reply.error(error);
                }
                loaded.put(sha, args.get(2));
                return Reply.Bulk.of(sha);
            }
            case "EXISTS" ->
            {
                final List<Reply> found = new ArrayList<>();
                for (final byte[] sha : args.subList(2, args.size()))
                {
                    found.add(new Reply.Int(body(new String(sha, StandardCharsets.ISO_8859_1)
                        .toLowerCase(Locale.ROOT)) == null ? 0 : 1));
                }
                return new Reply.Array(found);
            }
            case "FLUSH" ->
            {
                if (!flushes(args))
                {
                    return Reply.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                }
                loaded.clear();
                evaluated.clear();
                return Reply.OK;
            }
            case "HELP" ->
            {
                return Subcommands.help("SCRIPT");
            }
            default ->
            {
                return Subcommands.unsupported("SCRIPT", args);
            }
        }
    }

    /** Whether SCRIPT {@code args} is a FLUSH with a mode Redis takes (none, ASYNC or SYNC). */
    static boolean flushes(final List<byte[]> args)
    {
        final String mode = args.size() == 3 ? Commands.word(args.get(2)) : "SYNC";
        return args.size() <= 3 && Commands.word(args.get(1)).equals("FLUSH") &&
            (mode.equals("SYNC") || mode.equals("ASYNC"));
    }

    /**
     * The key count of EVAL or EVAL_RO {@code args}, checked as Redis checks it before it runs or caches the script.
     *
     * @throws KvStore.SyntaxError with Redis's error: not an integer, negative, or more than the words after it.
     */
    static long keyCount(final List<byte[]> args)
    {
        final long keys = ValueEdits.integer(args.get(2));
        if (keys < 0)
        {
            throw new KvStore.SyntaxError("ERR Number of keys can't be negative");
        }
        if (keys > args.size() - 3)
        {
            throw new KvStore.SyntaxError("ERR Number of keys can't be greater than number of args");
        }
        return keys;
    }

    /**
     * The delivery thread (a write at every member, a read at its origin): EVAL or EVAL_RO script numkeys key ... arg
     * ..., the script's reply converted as Redis converts it.
     */
    Reply eval(final String cmd, final List<byte[]> args, final long now)
    {
        final long keys = keyCount(args);
        final byte[] body = args.get(1);
        final String sha = sha1(body);
        evaluated.putIfAbsent(sha, body);
        if (runtime == null)
        {
            runtime = new ScriptRuntime(store);
        }
        final int first = 3 + (int)keys;
        return runtime.run(sha, body, args.subList(3, first), args.subList(first, args.size()), cmd.endsWith("_RO"),
            now);
    }

    static String sha1(final byte[] body)
    {
        return Digests.hex("SHA-1", body);
    }
}
