package io.weft.examples.kv;

/**
 * Redis's geohash ({@link Geo}): a longitude and a latitude as 26 bits each, interleaved into the 52-bit integer a
 * sorted set keeps as a member's score, decoded back to the centre of its cell, and the nine cells that cover a
 * search. The arithmetic is Redis 7's, step for step, so that positions, distances, the cells a search reads and the
 * order of its unsorted results are those redis-server gives; the trigonometry is StrictMath's, the same at every
 * member of a group, which must agree on what a search stores.
 */
final class GeoHash
{
    static final double LONG_MAX = 180;
    /** Web Mercator's limit: there is no cell at the poles. */
    static final double LAT_MAX = 85.05112878;
    private static final double EARTH_RADIUS = 6372797.560856;
    private static final double DEGREE = Math.PI / 180.0;
    /** The latitude's bits of a cell; the longitude's are the others. */
    private static final long EVEN = 0x5555555555555555L;

    /**
     * A cell of {@code step} bits an axis; step 0 for a cell a search leaves out.
     *
     * @param bits the latitude's bits at even positions, the longitude's at odd ones.
     * @param step bits of each axis.
     */
    record Cell(long bits, int step)
    {
        /** Bits a score keeps of each axis. */
        static final int STEP_MAX = 26;
        static final Cell NONE = new Cell(0, 0);

        /** The first score of the cell's members (a score has {@value #STEP_MAX} bits an axis). */
        long firstScore()
        {
            return bits << (2 * (Cell.STEP_MAX - step));
        }

        /** The first score past the cell's members. */
        long endScore()
        {
            return bits + 1 << (2 * (Cell.STEP_MAX - step));
        }
    }

    private GeoHash()
    {
    }

    /** A position's score: its cell of {@value Cell#STEP_MAX} bits an axis (in range: {@link Geo} checked it). */
    static long score(final double longitude, final double latitude)
    {
        return encode(-LONG_MAX, LONG_MAX, -LAT_MAX, LAT_MAX, longitude, latitude, Cell.STEP_MAX);
    }

    /**
     * The standard geohash's bits of a position (latitudes from -90 to 90, where scores use Mercator's range): what
     * GEOHASH spells.
     */
    static long standard(final double longitude, final double latitude)
    {
        return encode(-LONG_MAX, LONG_MAX, -90, 90, longitude, latitude, Cell.STEP_MAX);
    }

    private static long encode(final double lonMin, final double lonMax, final double latMin, final double latMax,
        final double longitude, final double latitude, final int step)
    {
        // C converts each fraction of the range to an unsigned 32-bit integer: truncated
        final double latOffset = (latitude - latMin) / (latMax - latMin) * (1L << step);
        final double lonOffset = (longitude - lonMin) / (lonMax - lonMin) * (1L << step);
        return spread((long)latOffset & 0xFFFFFFFFL) | spread((long)lonOffset & 0xFFFFFFFFL) << 1;
    }

    /** The centre of a score's cell, {longitude, latitude}, kept within the ranges a position may take. */
    static double[] position(final double score)
    {
        final double[] area = area(new Cell(unsignedBits(score), Cell.STEP_MAX));
        return new double[] {Math.clamp((area[0] + area[1]) / 2, -LONG_MAX, LONG_MAX),
            Math.clamp((area[2] + area[3]) / 2, -LAT_MAX, LAT_MAX)};
    }

    /** A score as C's conversion to an unsigned 64-bit integer leaves it (on x86-64). */
    private static long unsignedBits(final double score)
    {
        if (score < 0x1p63)
        {
            return (long)score;
        }
        final double high = score - 0x1p63;
        return (high >= 0x1p63 ? Long.MIN_VALUE : (long)high) ^ Long.MIN_VALUE;
    }

    /** A cell's bounds: {longitude min, max, latitude min, max}. */
    private static double[] area(final Cell cell)
    {
        final long latitudes = squash(cell.bits);
        final long longitudes = squash(cell.bits >>> 1);
        final double cells = 1L << cell.step;
        // as C computes them: an unsigned 32-bit index plus one wraps
        return new double[] {
            -LONG_MAX + longitudes / cells * (2 * LONG_MAX),
            -LONG_MAX + (longitudes + 1 & 0xFFFFFFFFL) / cells * (2 * LONG_MAX),
            -LAT_MAX + latitudes / cells * (2 * LAT_MAX),
            -LAT_MAX + (latitudes + 1 & 0xFFFFFFFFL) / cells * (2 * LAT_MAX)};
    }

    /**
     * A search's area around {@code centre} ({longitude, latitude}): a circle of {@code radius}, or a box of {@code
     * width} by {@code height}, in a unit of {@code conversion} metres.
     */
    record Shape(double[] centre, double conversion, boolean box, double radius, double width, double height)
    {
        /** The distance in metres from the centre to {@code point}; NaN if the point is outside. */
        double distanceIfWithin(final double[] point)
        {
            if (box)
            {
                // the latitude first, as Redis checks it: the cheaper distance
                if (latitudeDistance(point[1], centre[1]) > height * conversion / 2 ||
                    distance(point[0], point[1], centre[0], point[1]) > width * conversion / 2)
                {
                    return Double.NaN;
                }
                return distance(centre[0], centre[1], point[0], point[1]);
            }
            final double d = distance(centre[0], centre[1], point[0], point[1]);
            return d > radius * conversion ? Double.NaN : d;
        }

        /**
         * The cells the search reads, in Redis's order (centre, north, south, east, west, north-east, north-west,
         * south-east, south-west): the centre's cell, as small as covers the
         * shape's bounds with its neighbours, and those neighbours the bounds reach.
         */
        Cell[] cover()
        {
            final double halfHeight = conversion * (box ? height / 2 : radius);
            final double halfWidth = conversion * (box ? width / 2 : radius);
            final double latitude = centre[1];
            final double latDelta = halfHeight / EARTH_RADIUS / DEGREE;
            final double lonDelta = halfWidth / EARTH_RADIUS /
                StrictMath.cos((latitude < 0 ? latitude - latDelta : latitude + latDelta) * DEGREE) / DEGREE;
            final double[] bounds = {centre[0] - lonDelta, centre[0] + lonDelta, latitude - latDelta,
                latitude + latDelta};
            final double reach = box ? Math.sqrt(width / 2 * (width / 2) + height / 2 * (height / 2)) : radius;
            int step = steps(reach * conversion, latitude);
            Cell[] cells = cells(centre, step);
            final boolean tooLarge = area(cells[1])[3] < bounds[3] || area(cells[2])[2] > bounds[2] ||
                area(cells[3])[1] < bounds[1] || area(cells[4])[0] > bounds[0];
            if (step > 1 && tooLarge)
            {
                cells = cells(centre, --step);
            }
            if (step >= 2)
            {
                final double[] area = area(cells[0]);
                leaveOut(cells, area[2] < bounds[2], 2, 7, 8); // the centre's cell reaches past the south bound
                leaveOut(cells, area[3] > bounds[3], 1, 5, 6);
                leaveOut(cells, area[0] < bounds[0], 4, 8, 6);
                leaveOut(cells, area[1] > bounds[1], 3, 7, 5);
            }
            return cells;
        }
    }

    private static void leaveOut(final Cell[] cells, final boolean holds, final int a, final int b, final int c)
    {
        if (holds)
        {
            cells[a] = cells[b] = cells[c] = Cell.NONE;
        }
    }

    /** The bits an axis of cells around a search of {@code radius} metres take: the larger, the fewer. */
    private static int steps(final double radius, final double latitude)
    {
        if (radius == 0)
        {
            return Cell.STEP_MAX;
        }
        int step = 1;
        for (double range = radius; range < 20037726.37; range *= 2) // to half the equator in Mercator metres
        {
            step++;
        }
        step -= 2;
        if (latitude > 66 || latitude < -66)
        {
            step -= latitude > 80 || latitude < -80 ? 2 : 1; // meridians closer towards the poles
        }
        return Math.clamp(step, 1, Cell.STEP_MAX);
    }

    /** The centre's cell of {@code step} bits and its eight neighbours, in {@link Shape#cover}'s order. */
    private static Cell[] cells(final double[] centre, final int step)
    {
        final long bits = encode(-LONG_MAX, LONG_MAX, -LAT_MAX, LAT_MAX, centre[0], centre[1], step);
        final long north = moved(bits, step, EVEN, 1);
        final long south = moved(bits, step, EVEN, -1);
        return new Cell[] {new Cell(bits, step), new Cell(north, step), new Cell(south, step),
            new Cell(moved(bits, step, ~EVEN, 1), step), new Cell(moved(bits, step, ~EVEN, -1), step),
            new Cell(moved(north, step, ~EVEN, 1), step), new Cell(moved(north, step, ~EVEN, -1), step),
            new Cell(moved(south, step, ~EVEN, 1), step), new Cell(moved(south, step, ~EVEN, -1), step)};
    }

    /** A cell moved by one along the axis whose bits {@code axis} masks (~EVEN: longitude), wrapping around. */
    private static long moved(final long bits, final int step, final long axis, final int by)
    {
        final int unused = 64 - 2 * step;
        final long other = bits & ~axis;
        final long carry = ~axis >>> unused; // the other axis's bits set: a carry or borrow runs through them
        final long moved = by > 0 ? (bits & axis) + carry + 1 : ((bits & axis) | carry) - (carry + 1);
        return moved & axis >>> unused | other;
    }

    /** The great-circle distance in metres between two positions in degrees (haversine, as Redis computes it). */
    static double distance(final double lon1, final double lat1, final double lon2, final double lat2)
    {
        final double v = StrictMath.sin((lon2 * DEGREE - lon1 * DEGREE) / 2);
        if (v == 0.0)
        {
            return latitudeDistance(lat1, lat2);
        }
        final double lat1r = lat1 * DEGREE;
        final double lat2r = lat2 * DEGREE;
        final double u = StrictMath.sin((lat2r - lat1r) / 2);
        final double a = u * u + StrictMath.cos(lat1r) * StrictMath.cos(lat2r) * v * v;
        return 2.0 * EARTH_RADIUS * StrictMath.asin(Math.sqrt(a));
    }

    /** The distance in metres along a meridian between two latitudes. */
    static double latitudeDistance(final double lat1, final double lat2)
    {
        return EARTH_RADIUS * Math.abs(lat2 * DEGREE - lat1 * DEGREE);
    }

    /** Bits 0-31 of {@code v} at the even positions of the result. */
    private static long spread(final long v)
    {
        long x = (v | v << 16) & 0x0000FFFF0000FFFFL;
        x = (x | x << 8) & 0x00FF00FF00FF00FFL;
        x = (x | x << 4) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | x << 2) & 0x3333333333333333L;
        return (x | x << 1) & EVEN;
    }

    /** The even bits of {@code v}, gathered into bits 0-31. */
    private static long squash(final long v)
    {
        long x = v & EVEN;
        x = (x | x >>> 1) & 0x3333333333333333L;
        x = (x | x >>> 2) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | x >>> 4) & 0x00FF00FF00FF00FFL;
        x = (x | x >>> 8) & 0x0000FFFF0000FFFFL;
        return (x | x >>> 16) & 0x00000000FFFFFFFFL;
    }
}
