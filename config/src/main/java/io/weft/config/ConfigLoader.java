package io.weft.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Loads a {@link WeftConfig} from a HOCON file. Precedence, highest first: explicit overrides (the command line),
 * {@code -Dweft.*} system properties, the file, the reference defaults in {@code weft-reference.conf}.
 * Every failure is a {@link WeftConfigException} naming the key: unknown keys (typos), wrong types, values out of
 * range and missing files all stop the member before it touches the group.
 */
public final class ConfigLoader
{
    /** The class-path resource with every key's default and documentation. */
    public static final String REFERENCE_RESOURCE = "weft-reference.conf";
    /** The keys of a list's objects, in the order error messages list them. */
    private static final List<String> MEMBER_KEYS = List.of("id", "host", "sst-port", "control-port");
    private static final List<String> SUBGROUP_KEYS = List.of("name", "members", "senders", "window", "max-payload",
        "mode");
    private static final List<String> TOPIC_KEYS = List.of("name", "id", "qos", "publishers", "subscribers", "window",
        "max-sample", "history", "key");
    private static final Set<String> KEY_KEYS = Set.of("offset", "length", "max-keys");

    private static volatile Config reference;

    private ConfigLoader()
    {
    }

    /** Loads {@code file} with system-property overrides. */
    public static WeftConfig load(final Path file)
    {
        return load(file, Map.of());
    }

    /**
     * Loads {@code file}; {@code overrides} maps full keys (for example {@code weft.member.id}) to values and wins
     * over everything else.
     */
    public static WeftConfig load(final Path file, final Map<String, ?> overrides)
    {
        if (!Files.isRegularFile(file) || !Files.isReadable(file))
        {
            throw new WeftConfigException("config file", file.toString(), "no such readable file");
        }
        final Config user;
        try
        {
            user = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
        }
        catch (final ConfigException ex)
        {
            throw new WeftConfigException("config file " + file, "cannot be parsed: " + ex.getMessage(), ex);
        }
        return fromConfig(user, overrides);
    }

    /** Builds a configuration from already-parsed HOCON (for example text rendered by {@link ConfigWriter}). */
    public static WeftConfig fromConfig(final Config user, final Map<String, ?> overrides)
    {
        final Config system = ConfigFactory.parseProperties(System.getProperties());
        // a process-wide switch read by a class initializer, not a key: left out rather than refused as unknown
        final Config weftProperties = system.hasPath("weft") ?
            system.withOnlyPath("weft").withoutPath(ProcessBarrier.DISABLED_PROPERTY) : ConfigFactory.empty();
        final Config merged;
        try
        {
            merged = ConfigFactory.parseMap(overrides, "command line")
                .withFallback(weftProperties)
                .withFallback(user)
                .resolve();
        }
        catch (final ConfigException ex)
        {
            throw new WeftConfigException(ex.origin() == null ? "config" : ex.origin().description(),
                ex.getMessage(), ex);
        }
        rejectUnknownKeys(merged);
        return builderFrom(merged.withFallback(reference())).build();
    }

    static Config reference()
    {
        Config ref = reference;
        if (ref == null)
        {
            ref = ConfigFactory.parseResources(ConfigLoader.class.getClassLoader(), REFERENCE_RESOURCE,
                ConfigParseOptions.defaults().setAllowMissing(false));
            reference = ref;
        }
        return ref;
    }

    static WeftConfig.Builder builderFrom(final Config c)
    {
        final WeftConfig.Builder b = new WeftConfig.Builder();
        b.memberId = intValue(c, "weft.member.id");
        b.groupName = string(c, "weft.group.name");
        b.members = members(c);
        b.transportKind = TransportKind.parse("weft.transport.kind", string(c, "weft.transport.kind"));
        b.connectTimeout = duration(c, "weft.transport.connect-timeout");
        final String dir = string(c, "weft.transport.shm.directory");
        b.shmDirectory = Path.of(dir);
        b.shmZeroCopy = bool(c, "weft.transport.shm.zero-copy");
        b.tcp = new TcpOptions(
            bytes(c, "weft.transport.tcp.send-buffer"),
            bytes(c, "weft.transport.tcp.socket-buffer"),
            bool(c, "weft.transport.tcp.no-delay"),
            TransportThreading.parse("weft.transport.tcp.threading", string(c, "weft.transport.tcp.threading")));
        b.rdma = new RdmaOptions(RdmaBackend.parse("weft.transport.rdma.backend",
            string(c, "weft.transport.rdma.backend")),
            string(c, "weft.transport.rdma.provider"),
            new VerbsOptions(string(c, "weft.transport.rdma.verbs.library"),
                string(c, "weft.transport.rdma.verbs.device"),
                intValue(c, "weft.transport.rdma.verbs.port"), intValue(c, "weft.transport.rdma.verbs.gid-index")),
            TransportThreading.parse("weft.transport.rdma.threading", string(c, "weft.transport.rdma.threading")));
        b.idle = new IdleConfig(
            IdleStrategyKind.parse("weft.idle.strategy", string(c, "weft.idle.strategy")),
            intValue(c, "weft.idle.max-spins"),
            intValue(c, "weft.idle.max-yields"),
            duration(c, "weft.idle.max-park"),
            YieldAfterWork.parse("weft.idle.yield-after-work", string(c, "weft.idle.yield-after-work")));
        b.failure = new FailureConfig(duration(c, "weft.failure.heartbeat-interval"),
            duration(c, "weft.failure.failure-timeout"));
        b.subgroups = subgroups(c, b.transportKind);
        b.dds = new DdsConfig(Path.of(string(c, "weft.dds.log-directory")), bool(c, "weft.dds.log-drop-behind"),
            topics(c, b.transportKind));
        b.smc = new SmcConfig(bool(c, "weft.smc.send-batching"), bool(c, "weft.smc.receive-batching"),
            bool(c, "weft.smc.delivery-batching"), bool(c, "weft.smc.null-sends"),
                bool(c, "weft.smc.early-lock-release"),
            bool(c, "weft.smc.lazy-nulls"), bool(c, "weft.smc.lazy-delivered"));
        b.membership = new MembershipConfig(ids(c, "weft.membership.initial-view", "weft.membership.initial-view"),
            c.getIsNull("weft.membership.secret") ? null : string(c, "weft.membership.secret"),
            ViewChangeSends.parse("weft.membership.send-during-view-change",
                string(c, "weft.membership.send-during-view-change")),
            duration(c, "weft.membership.join-timeout"), bool(c, "weft.membership.runtime-subgroups"));
        return b;
    }

    private static void rejectUnknownKeys(final Config merged)
    {
        for (final String top : merged.root().keySet())
        {
            if (!"weft".equals(top))
            {
                throw new WeftConfigException(top, merged.root().get(top).unwrapped(),
                    "unknown key: every key lives under weft (see " + REFERENCE_RESOURCE + ")");
            }
        }
        final Config ref = reference();
        for (final Map.Entry<String, ConfigValue> e : merged.entrySet())
        {
            if (e.getKey().equals(ProcessBarrier.DISABLED_PROPERTY))
            {
                throw new WeftConfigException(e.getKey(), e.getValue().unwrapped(), "not a configuration key: a JVM " +
                    "system property read once per process (-D" + ProcessBarrier.DISABLED_PROPERTY + "=true)");
            }
            if (!ref.hasPathOrNull(e.getKey()))
            {
                throw new WeftConfigException(e.getKey(), e.getValue().unwrapped(),
                    "unknown key (allowed keys and their meaning are listed in " + REFERENCE_RESOURCE + ")");
            }
        }
    }

    private static List<MemberAddress> members(final Config c)
    {
        return objects(c, "weft.group.members", MEMBER_KEYS, "member", (object, at) ->
        {
            final Config m = object.toConfig();
            for (final String k : MEMBER_KEYS)
            {
                if (!m.hasPath(k))
                {
                    throw new WeftConfigException(at + "." + k, null, "missing; a member needs " + MEMBER_KEYS);
                }
            }
            return new MemberAddress(intValue(m, "id", at + ".id"), string(m, "host", at + ".host"),
                intValue(m, "sst-port", at + ".sst-port"), intValue(m, "control-port", at + ".control-port"));
        });
    }

    /** Reads one object of a list; {@code at} names it in errors ({@code weft.subgroups[2]}). */
    @FunctionalInterface
    private interface Entry<T>
    {
        T read(ConfigObject object, String at);
    }

    /**
     * The list of objects at {@code key}, each checked to have only {@code keys} (a {@code what} in errors) and then
     * read by {@code entry}.
     */
    private static <T> List<T> objects(final Config c, final String key, final List<String> keys, final String what,
        final Entry<T> entry)
    {
        final ConfigValue value = c.getValue(key);
        if (value.valueType() != ConfigValueType.LIST)
        {
            throw new WeftConfigException(key, value.unwrapped(), "must be a list of " + what + " objects");
        }
        final List<T> result = new ArrayList<>();
        final ConfigList list = (ConfigList)value;
        for (int i = 0; i < list.size(); i++)
        {
            final String at = key + "[" + i + "]";
            if (list.get(i).valueType() != ConfigValueType.OBJECT)
            {
                throw new WeftConfigException(at, list.get(i).unwrapped(), "must be a " + what + " object " + keys);
            }
            final ConfigObject object = (ConfigObject)list.get(i);
            for (final String k : object.keySet())
            {
                if (!keys.contains(k))
                {
                    throw new WeftConfigException(at + "." + k, object.get(k).unwrapped(),
                        "unknown key; a " + what + " has " + keys);
                }
            }
            result.add(entry.read(object, at));
        }
        return result;
    }

    private static List<SubgroupConfig> subgroups(final Config c, final TransportKind kind)
    {
        return objects(c, "weft.subgroups", SUBGROUP_KEYS, "subgroup", (object, at) ->
        {
            final Config s = object.toConfig().withFallback(c.getConfig("weft.subgroup-defaults"));
            final int maxPayload = bytes(s, "max-payload", at + ".max-payload");
            return new SubgroupConfig(string(s, "name", at + ".name"), ids(s, "members", at + ".members"),
                ids(s, "senders", at + ".senders"), window(s, at, kind, maxPayload), maxPayload,
                DeliveryMode.parse(at + ".mode", string(s, "mode", at + ".mode")));
        });
    }

    private static List<TopicConfig> topics(final Config c, final TransportKind kind)
    {
        return objects(c, "weft.dds.topics", TOPIC_KEYS, "topic", (object, at) ->
        {
            if (!object.containsKey("name") || !object.containsKey("id"))
            {
                throw new WeftConfigException(at, object.unwrapped(), "must have a name and an id (0..255)");
            }
            final Config t = object.toConfig().withFallback(c.getConfig("weft.dds.topic-defaults"));
            final int maxSample = bytes(t, "max-sample", at + ".max-sample");
            return new TopicConfig(string(t, "name", at + ".name"), intValue(t, "id", at + ".id"),
                QosLevel.parse(at + ".qos", string(t, "qos", at + ".qos")), ids(t, "publishers", at + ".publishers"),
                ids(t, "subscribers", at + ".subscribers"), window(t, at, kind, maxSample), maxSample,
                intValue(t, "history", at + ".history"), sampleKey(t, at + ".key"));
        });
    }

    /** A ring's {@code window}: a count of max-size messages, or "auto" (about 1 MiB; 256 KiB on rdma). */
    private static int window(final Config s, final String at, final TransportKind kind, final int maxPayload)
    {
        final ConfigValue v = s.getValue("window");
        return v.valueType() == ConfigValueType.STRING && "auto".equals(v.unwrapped()) ?
            SubgroupConfig.autoWindow(kind, maxPayload) : intValue(s, "window", at + ".window");
    }

    /** "none", or { offset, length, max-keys } (max-keys defaults to 4096). */
    private static SampleKey sampleKey(final Config t, final String at)
    {
        final ConfigValue v = t.getValue("key");
        if (v.valueType() == ConfigValueType.STRING && "none".equals(v.unwrapped()))
        {
            return null;
        }
        if (v.valueType() != ConfigValueType.OBJECT)
        {
            throw new WeftConfigException(at, v.unwrapped(), "must be none or { offset = N, length = 1..8 }");
        }
        final ConfigObject o = (ConfigObject)v;
        for (final String k : o.keySet())
        {
            if (!KEY_KEYS.contains(k))
            {
                throw new WeftConfigException(at + "." + k, o.get(k).unwrapped(), "is not a key setting; allowed: " +
                    new java.util.TreeSet<>(KEY_KEYS));
            }
        }
        if (!o.containsKey("offset") || !o.containsKey("length"))
        {
            throw new WeftConfigException(at, o.unwrapped(), "must give offset and length");
        }
        final Config k = o.toConfig();
        try
        {
            return new SampleKey(intValue(k, "offset", at + ".offset"), intValue(k, "length", at + ".length"),
                k.hasPath("max-keys") ? intValue(k, "max-keys", at + ".max-keys") : 4096);
        }
        catch (final WeftConfigException ex)
        {
            throw new WeftConfigException(at, ex.getMessage(), ex);
        }
    }

    /** "all" or a list of member ids; "all" is the empty list. */
    private static List<Integer> ids(final Config c, final String path, final String key)
    {
        final ConfigValue v = c.getValue(path);
        if (v.valueType() == ConfigValueType.STRING && "all".equals(v.unwrapped()))
        {
            return List.of();
        }
        try
        {
            return c.getIntList(path);
        }
        catch (final ConfigException.WrongType ex)
        {
            throw new WeftConfigException(key, v.unwrapped(), "must be \"all\" or a list of member ids");
        }
    }

    private static String string(final Config c, final String key)
    {
        return string(c, key, key);
    }

    private static String string(final Config c, final String path, final String key)
    {
        return typed(c, path, key, Config::getString, "must be a string");
    }

    private static int intValue(final Config c, final String key)
    {
        return intValue(c, key, key);
    }

    private static int intValue(final Config c, final String path, final String key)
    {
        return typed(c, path, key, Config::getInt,
            path.equals("window") ? "must be auto or a whole number" : "must be a whole number");
    }

    private static boolean bool(final Config c, final String key)
    {
        return typed(c, key, key, Config::getBoolean, "must be true or false");
    }

    private static Duration duration(final Config c, final String key)
    {
        return typed(c, key, key, Config::getDuration, "must be a duration such as 250ms, 2s or 1m");
    }

    private static int bytes(final Config c, final String key)
    {
        return bytes(c, key, key);
    }

    private static int bytes(final Config c, final String path, final String key)
    {
        final long value = typed(c, path, key, Config::getBytes, "must be a size such as 512 KiB or 8 MiB");
        if (value > Integer.MAX_VALUE)
        {
            throw new WeftConfigException(key, value, "must be below 2 GiB");
        }
        return (int)value;
    }

    /** The value at {@code path} read by {@code getter}; one of another type is refused as {@code key}. */
    private static <T> T typed(final Config c, final String path, final String key,
        final BiFunction<Config, String, T> getter, final String mustBe)
    {
        try
        {
            return getter.apply(c, path);
        }
        catch (final ConfigException.WrongType | ConfigException.BadValue ex)
        {
            throw new WeftConfigException(key, c.getValue(path).unwrapped(), mustBe);
        }
    }
}
