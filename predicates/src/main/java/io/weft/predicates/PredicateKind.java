package io.weft.predicates;

/** When a predicate's trigger runs. */
public enum PredicateKind
{
    /** Fires once, the first pass the condition holds, then is removed. */
    ONE_TIME,
    /** Fires on every pass the condition holds. */
    RECURRENT,
    /** Fires on every false-to-true edge of the condition. The value before the first evaluation counts as false. */
    TRANSITION
}
