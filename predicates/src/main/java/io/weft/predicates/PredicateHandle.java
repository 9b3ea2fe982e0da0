package io.weft.predicates;

import java.util.function.BooleanSupplier;

/** A registered predicate. {@link #remove()} is safe from any thread, including from inside any trigger. */
public final class PredicateHandle
{
    final PredicateKind kind;
    final BooleanSupplier condition;
    final Runnable trigger;
    final String name;
    volatile boolean removed;
    boolean lastValue;

    PredicateHandle(final String name, final PredicateKind kind, final BooleanSupplier condition,
        final Runnable trigger)
    {
        this.name = name;
        this.kind = kind;
        this.condition = condition;
        this.trigger = trigger;
    }

    /** Stops evaluating this predicate; a trigger already running completes. */
    public void remove()
    {
        removed = true;
    }

    /** Whether {@link #remove()} was called. */
    public boolean isRemoved()
    {
        return removed;
    }

    /** The name it was registered with, for logs and meters. */
    public String name()
    {
        return name;
    }

    /** One-time or recurrent. */
    public PredicateKind kind()
    {
        return kind;
    }

    @Override
    public String toString()
    {
        return "Predicate{" + name + ", " + kind + (removed ? ", removed}" : "}");
    }
}
