package io.weft.examples.kv;

import io.weft.examples.kv.GeoHash.Cell;
import io.weft.examples.kv.GeoHash.Shape;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Redis's geospatial commands, over sorted sets whose scores are positions ({@link GeoHash}): GEOADD, GEOSEARCHSTORE,
 * GEORADIUS and GEORADIUSBYMEMBER (writes: they may STORE) and GEOPOS, GEODIST, GEOHASH, GEOSEARCH, GEORADIUS_RO and
 * GEORADIUSBYMEMBER_RO (reads; through the group, as a sorted set's are). Arguments are checked in Redis's order, with
 * its errors; a search reads the cells Redis reads in its order, so that unsorted results come in the same order.
 */
final class Geo
{
    private static final String NOT_A_FLOAT = "ERR value is not a valid float";
    private static final String SYNTAX = "ERR syntax error";
    private static final String NO_MEMBER = "ERR could not decode requested zset member";
    private static final byte[] ZADD = "ZADD".getBytes(StandardCharsets.US_ASCII);
    private static final char[] BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz".toCharArray();

    /** A member a search found: its bytes, score, position and distance in metres (sorted by: Redis's order). */
    private record Found(byte[] member, double score, double[] position, double metres)
    {
    }

    /** What a search's arguments ask beyond its shape. */
    private static final class Search
    {
        boolean withDist;
        boolean withHash;
        boolean withCoord;
        boolean any;
        /** Metres in the search's unit. */
        double unit;
        /** 1 ascending, -1 descending, 0 in the order found. */
        int order;
        long count;
        byte[] store;
        boolean storeDist;
        boolean fromMember;
        boolean fromLonLat;
        boolean byRadius;
        boolean byBox;
    }

    private Geo()
    {
    }

    /** Runs {@code cmd}, a GEO command, over {@code map}. */
    static Reply apply(final Keyspace map, final String cmd, final List<byte[]> args, final long now)
    {
        if (!Commands.fitsArity(cmd, args.size()))
        {
            return Reply.wrongArity(cmd);
        }
        return switch (cmd)
        {
            case "GEOADD" -> add(map, args, now);
            case "GEOPOS", "GEOHASH" -> positions(map.zset(new Key(args.get(1)), now), args, cmd.equals("GEOPOS"));
            case "GEODIST" -> distance(map, args, now);
            case "GEORADIUS", "GEORADIUS_RO", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO" ->
                search(map, args, 1, now);
            case "GEOSEARCH" -> search(map, args, 1, now);
            case "GEOSEARCHSTORE" -> search(map, args, 2, now);
            default -> Reply.unknown(cmd);
        };
    }

    /**
     * GEOADD key [NX|XX] [CH] longitude latitude member ...: ZADD of each member at its position's score, every
     * position checked before any is added.
     */
    private static Reply add(final Keyspace map, final List<byte[]> args, final long now)
    {
        boolean nx = false;
        boolean xx = false;
        int at = 2;
        for (; at < args.size(); at++)
        {
            final String option = Commands.word(args.get(at));
            if (!option.equals("NX") && !option.equals("XX") && !option.equals("CH"))
            {
                break;
            }
            nx |= option.equals("NX");
            xx |= option.equals("XX");
        }
        if ((args.size() - at) % 3 != 0 || nx && xx)
        {
            return Reply.error(SYNTAX);
        }
        final List<byte[]> zadd = new ArrayList<>(args.subList(0, at));
        zadd.set(0, ZADD);
        for (int i = at; i < args.size(); i += 3)
        {
            final double[] position = position(args, i);
            zadd.add(Long.toString(GeoHash.score(position[0], position[1])).getBytes(StandardCharsets.US_ASCII));
            zadd.add(args.get(i + 2));
        }
        return new ZSetCommands(map).apply("ZADD", zadd, now);
    }

    /** GEOPOS or GEOHASH key member ...: each member's position, or its geohash of 11 characters; nil if none. */
    private static Reply positions(final ZSetValue z, final List<byte[]> args, final boolean pos)
    {
        final List<Reply> replies = new ArrayList<>();
        for (final byte[] member : args.subList(2, args.size()))
        {
            final ZSetValue.Node node = z == null ? null : z.members().get(member);
            if (node == null)
            {
                replies.add(pos ? Reply.NIL_ARRAY : Reply.NIL);
                continue;
            }
            final double[] position = GeoHash.position(node.score);
            replies.add(pos ? coordinates(position) : Reply.Bulk.of(spelt(position)));
        }
        return new Reply.Array(replies);
    }

    /** The standard geohash of a position, as GEOHASH spells it: 10 characters of 5 bits, then a 0. */
    private static String spelt(final double[] position)
    {
        final long bits = GeoHash.standard(position[0], position[1]);
        final StringBuilder text = new StringBuilder(11);
        for (int i = 1; i <= 10; i++)
        {
            text.append(BASE32[(int)(bits >>> (52 - 5 * i)) & 0x1f]);
        }
        return text.append('0').toString();
    }

    /** GEODIST key member member [unit]: their distance, four decimals; nil if either is not a member. */
    private static Reply distance(final Keyspace map, final List<byte[]> args, final long now)
    {
        if (args.size() > 5)
        {
            return Reply.error(SYNTAX);
        }
        final double unit = args.size() == 5 ? unit(args.get(4)) : 1;
        final ZSetValue z = map.zset(new Key(args.get(1)), now);
        final ZSetValue.Node a = z == null ? null : z.members().get(args.get(2));
        final ZSetValue.Node b = z == null ? null : z.members().get(args.get(3));
        if (a == null || b == null)
        {
            return Reply.NIL;
        }
        final double[] p = GeoHash.position(a.score);
        final double[] q = GeoHash.position(b.score);
        return Reply.Bulk.of(decimals(GeoHash.distance(p[0], p[1], q[0], q[1]) / unit, 4));
    }

    /**
     * GEOSEARCH, GEOSEARCHSTORE and the GEORADIUS family over the sorted set at word {@code source}: the members
     * within the shape, found cell by cell ({@link Shape#cover}), sorted by distance if asked (COUNT without ANY asks
     * ascending), with their distance, score and position if asked, or stored as a sorted set.
     */
    private static Reply search(final Keyspace map, final List<byte[]> args, final int source, final long now)
    {
        final String cmd = Commands.word(args.getFirst());
        final boolean geoSearch = cmd.startsWith("GEOSEARCH");
        final ZSetValue z = map.zset(new Key(args.get(source)), now);
        final Search search = new Search();
        Shape shape = null;
        int from = geoSearch ? source + 1 : 5;
        if (cmd.startsWith("GEORADIUSBYMEMBER") && z != null)
        {
            shape = circle(member(z, args.get(2)), args, 3);
        }
        else if (cmd.startsWith("GEORADIUS") && !cmd.startsWith("GEORADIUSBYMEMBER"))
        {
            shape = circle(position(args, 2), args, 4);
            from = 6;
        }
        if (cmd.equals("GEOSEARCHSTORE"))
        {
            search.store = args.get(1);
        }
        shape = options(z, args, from, cmd, search, shape);
        final String storing = cmd.equals("GEOSEARCHSTORE") ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS";
        if (search.store != null && (search.withDist || search.withHash || search.withCoord))
        {
            return Reply.error("ERR " + storing + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        final String typed = new String(args.getFirst(), StandardCharsets.UTF_8);
        if (geoSearch && !search.fromMember && !search.fromLonLat)
        {
            return Reply.error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + typed);
        }
        if (geoSearch && !search.byRadius && !search.byBox)
        {
            return Reply.error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + typed);
        }
        if (search.any && search.count == 0)
        {
            return Reply.error("ERR the ANY argument requires COUNT argument");
        }
        if (z == null)
        {
            return search.store == null ? new Reply.Array(List.of()) : stored(map, search, List.of());
        }
        search.order = search.count != 0 && search.order == 0 && !search.any ? 1 : search.order;
        search.unit = shape.conversion();
        final List<Found> found = found(z, shape, search.any ? search.count : 0);
        if (search.order != 0)
        {
            final Comparator<Found> nearer = Comparator.comparingDouble(Found::metres);
            found.sort(search.order > 0 ? nearer : nearer.reversed()); // stable, as glibc's qsort of a small array
        }
        final List<Found> returned = search.count == 0 || found.size() < search.count ? found :
            found.subList(0, (int)search.count);
        return search.store == null ? replies(returned, search) : stored(map, search, returned);
    }

    /** The options of a search from word {@code from}: its shape, unless the GEORADIUS family gave it first. */
    private static Shape options(final ZSetValue z, final List<byte[]> args, final int from, final String cmd,
        final Search search, final Shape given)
    {
        final boolean geoSearch = cmd.startsWith("GEOSEARCH");
        final boolean mayStore = !geoSearch && !cmd.endsWith("_RO");
        double[] centre = given == null ? null : given.centre();
        Shape shape = given;
        for (int i = from; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            final int left = args.size() - i - 1;
            switch (option)
            {
                case "WITHDIST" -> search.withDist = true;
                case "WITHHASH" -> search.withHash = true;
                case "WITHCOORD" -> search.withCoord = true;
                case "ANY" -> search.any = true;
                case "ASC" -> search.order = 1;
                case "DESC" -> search.order = -1;
                default ->
                {
                    if (option.equals("COUNT") && left >= 1)
                    {
                        search.count = ValueEdits.integer(args.get(++i));
                        if (search.count <= 0)
                        {
                            throw new KvStore.SyntaxError("ERR COUNT must be > 0");
                        }
                    }
                    else if ((option.equals("STORE") || option.equals("STOREDIST")) && left >= 1 && mayStore)
                    {
                        search.store = args.get(++i);
                        search.storeDist = option.equals("STOREDIST");
                    }
                    else if (option.equals("STOREDIST") && cmd.equals("GEOSEARCHSTORE"))
                    {
                        search.storeDist = true;
                    }
                    else if (option.equals("FROMMEMBER") && left >= 1 && geoSearch && !search.fromLonLat)
                    {
                        // with no sorted set, the arguments are read on for their errors alone
                        centre = z == null ? null : member(z, args.get(i + 1));
                        search.fromMember = true;
                        i++;
                    }
                    else if (option.equals("FROMLONLAT") && left >= 2 && geoSearch && !search.fromMember)
                    {
                        centre = position(args, i + 1);
                        search.fromLonLat = true;
                        i += 2;
                    }
                    else if (option.equals("BYRADIUS") && left >= 2 && geoSearch && !search.byBox)
                    {
                        shape = circle(centre, args, i + 1);
                        search.byRadius = true;
                        i += 2;
                    }
                    else if (option.equals("BYBOX") && left >= 3 && geoSearch && !search.byRadius)
                    {
                        final double width = ZSetValue.parse(args.get(i + 1), "ERR need numeric width");
                        final double height = ZSetValue.parse(args.get(i + 2), "ERR need numeric height");
                        if (width < 0 || height < 0)
                        {
                            throw new KvStore.SyntaxError("ERR height or width cannot be negative");
                        }
                        shape = new Shape(centre, unit(args.get(i + 3)), true, 0, width, height);
                        search.byBox = true;
                        i += 3;
                    }
                    else
                    {
                        throw new KvStore.SyntaxError(SYNTAX);
                    }
                }
            }
        }
        // FROM may follow BY: the shape takes the centre named wherever it is
        return shape == null ? null : new Shape(centre, shape.conversion(), shape.box(), shape.radius(),
            shape.width(), shape.height());
    }

    /** A circle around {@code centre} of the radius and unit at words {@code at} and after it. */
    private static Shape circle(final double[] centre, final List<byte[]> args, final int at)
    {
        final double radius = ZSetValue.parse(args.get(at), "ERR need numeric radius");
        if (radius < 0)
        {
            throw new KvStore.SyntaxError("ERR radius cannot be negative");
        }
        return new Shape(centre, unit(args.get(at + 1)), false, radius, 0, 0);
    }

    /** The members within {@code shape}, cell by cell as Redis reads them, at most {@code limit} (0: all). */
    private static List<Found> found(final ZSetValue z, final Shape shape, final long limit)
    {
        final List<Found> found = new ArrayList<>();
        final Cell[] cells = shape.cover();
        int last = 0;
        for (int c = 0; c < cells.length; c++)
        {
            final Cell cell = cells[c];
            // a huge radius makes neighbours alike: Redis skips one that is the cell it read last (but the centre)
            if (cell.step() == 0 && cell.bits() == 0 || last != 0 && cell.equals(cells[last]))
            {
                continue;
            }
            if (limit != 0 && found.size() >= limit)
            {
                break;
            }
            final ZSetValue.Members members = z.members();
            for (int rank = members.belowScore(cell.firstScore(), false); rank < members.size(); rank++)
            {
                final ZSetValue.Node node = members.at(rank);
                if (node.score >= cell.endScore())
                {
                    break;
                }
                final double[] position = GeoHash.position(node.score);
                final double distance = shape.distanceIfWithin(position);
                if (!Double.isNaN(distance))
                {
                    found.add(new Found(node.member, node.score, position, distance));
                }
                if (limit != 0 && found.size() >= limit)
                {
                    break;
                }
            }
            last = c;
        }
        return found;
    }

    /** The members found, each alone or with what the search asked for: distance, score, position. */
    private static Reply replies(final List<Found> found, final Search search)
    {
        final List<Reply> replies = new ArrayList<>(found.size());
        for (final Found f : found)
        {
            if (!search.withDist && !search.withHash && !search.withCoord)
            {
                replies.add(new Reply.Bulk(f.member));
                continue;
            }
            final List<Reply> entry = new ArrayList<>(4);
            entry.add(new Reply.Bulk(f.member));
            if (search.withDist)
            {
                entry.add(Reply.Bulk.of(decimals(f.metres / search.unit, 4)));
            }
            if (search.withHash)
            {
                entry.add(new Reply.Int(f.score >= 0x1p63 ? Long.MIN_VALUE : (long)f.score)); // as C converts it
            }
            if (search.withCoord)
            {
                entry.add(coordinates(f.position));
            }
            replies.add(new Reply.Array(entry));
        }
        return new Reply.Array(replies);
    }

    /** STORE, STOREDIST, GEOSEARCHSTORE: the members found as a new sorted set (none removes the key); how many. */
    private static Reply stored(final Keyspace map, final Search search, final List<Found> found)
    {
        final ZSetValue z = map.writableZSet(null);
        found.forEach(f -> z.members().put(f.member, search.storeDist ? f.metres / search.unit : f.score));
        map.storeOrRemove(new Key(search.store), z);
        return new Reply.Int(found.size());
    }

    private static double[] member(final ZSetValue z, final byte[] member)
    {
        final ZSetValue.Node node = z.members().get(member);
        if (node == null)
        {
            throw new KvStore.SyntaxError(NO_MEMBER);
        }
        return GeoHash.position(node.score);
    }

    /** The longitude and latitude at words {@code at} and after it, checked to be a position a score can hold. */
    private static double[] position(final List<byte[]> args, final int at)
    {
        final double longitude = ZSetValue.parse(args.get(at), NOT_A_FLOAT);
        final double latitude = ZSetValue.parse(args.get(at + 1), NOT_A_FLOAT);
        if (Math.abs(longitude) > GeoHash.LONG_MAX || Math.abs(latitude) > GeoHash.LAT_MAX)
        {
            throw new KvStore.SyntaxError("ERR invalid longitude,latitude pair " + decimals(longitude, 6) + "," +
                decimals(latitude, 6));
        }
        return new double[] {longitude, latitude};
    }

    /** The metres in a unit: m, km, ft or mi, any case. */
    private static double unit(final byte[] unit)
    {
        return switch (Commands.word(unit))
        {
            case "M" -> 1;
            case "KM" -> 1000;
            case "FT" -> 0.3048;
            case "MI" -> 1609.34;
            default -> throw new KvStore.SyntaxError("ERR unsupported unit provided. please use M, KM, FT, MI");
        };
    }

    /** A position as Redis gives one: {longitude, latitude}, each to 17 decimals without trailing zeros. */
    private static Reply coordinates(final double[] position)
    {
        return new Reply.Array(List.of(new Reply.Double(position[0], human(position[0])),
            new Reply.Double(position[1], human(position[1]))));
    }

    /** C's {@code %.17Lf} of a double, trailing zeros and a trailing point dropped ("human" long doubles). */
    private static String human(final double value)
    {
        final String text = decimals(value, 17);
        int end = text.length();
        while (text.charAt(end - 1) == '0')
        {
            end--;
        }
        end -= text.charAt(end - 1) == '.' ? 1 : 0;
        final String trimmed = text.substring(0, end);
        return trimmed.equals("-0") ? "0" : trimmed;
    }

    /** C's {@code %.Nf}: the exact value rounded half to even at {@code places} decimals; inf and -inf as in C. */
    private static String decimals(final double value, final int places)
    {
        if (Double.isInfinite(value))
        {
            return value > 0 ? "inf" : "-inf";
        }
        final String text = new BigDecimal(value).setScale(places, RoundingMode.HALF_EVEN).toPlainString();
        // C keeps the sign of what rounds to 0, and of -0
        return Math.copySign(1, value) < 0 && !text.startsWith("-") ? "-" + text : text;
    }
}
