package io.weft.smc;

import io.weft.config.WeftConfig;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small-message multicast of every configured subgroup at one member, sharing one table and one predicate
 * thread. {@link #layout} declares the columns; {@link #start} binds them and registers the predicates.
 */
public final class Smc implements AutoCloseable
{
    private final Map<String, SmcSubgroup> subgroups = new LinkedHashMap<>();

    private Smc()
    {
    }

    /** The table layout for the configured subgroups, plus whatever {@code extra} declares first. */
    public static Layout layout(final WeftConfig config, final SstLayout.Builder extra)
    {
        final List<SubgroupLayout> subgroups = SubgroupLayout.declare(extra, config.subgroups(), config.group());
        final SstLayout built = extra.build();
        subgroups.forEach(s -> s.bind(built));
        return new Layout(built, subgroups);
    }

    /** Registers every subgroup's predicates on {@code predicates} (which may already run). */
    public static Smc start(final WeftConfig config, final Layout layout, final Sst sst,
        final PredicateThread predicates,
        final SmcTotals totals)
    {
        final Smc smc = new Smc();
        predicates.afterPass(sst::flush); // the triggers post; one flush per pass sends it all
        for (final SubgroupLayout l : layout.subgroups())
        {
            smc.subgroups.put(l.config().name(), new SmcSubgroup(l, sst, predicates, config.smc(), totals));
        }
        return smc;
    }

    /** The subgroup named {@code name}; an unknown name is refused with the configured names. */
    public SmcSubgroup subgroup(final String name)
    {
        final SmcSubgroup s = subgroups.get(name);
        if (s == null)
        {
            throw new IllegalArgumentException("no subgroup named " + name + "; configured: " + subgroups.keySet());
        }
        return s;
    }

    /** Every subgroup of this member in this view, by name. */
    public Map<String, SmcSubgroup> subgroups()
    {
        return subgroups;
    }

    @Override
    public void close()
    {
        subgroups.values().forEach(SmcSubgroup::close);
    }

    /** A built table layout and the subgroups placed in it. */
    public record Layout(SstLayout sst, List<SubgroupLayout> subgroups)
    {
    }
}
