package io.weft.membership;

/** Where a member is in its life: one state, changed under the {@link CurrentView} monitor. */
enum Lifecycle
{
    /** Built, first view not installed yet. */
    OPENING,
    /** In a view, taking part in view changes. */
    RUNNING,
    /** Passed the shutdown barrier ({@link Group#finish}): delivers, acknowledges, starts no view change. */
    FINISHING,
    /** Left gracefully: a view without it was agreed. */
    LEFT,
    /** Stopped for good: minority partition, removed as failed, or a failed view change. */
    STOPPED,
    /** Closed abruptly by the application. */
    CLOSED;

    /** No way back: the member no longer sends, delivers or takes part in view changes. */
    boolean terminal()
    {
        return this == LEFT || this == STOPPED || this == CLOSED;
    }
}
