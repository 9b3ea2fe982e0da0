package io.weft.membership;

/** Told of every view this member installs, the first one included, before any delivery in it. */
@FunctionalInterface
public interface ViewListener
{
    /** {@code view} is installed here; on the membership thread, before the view's first delivery. */
    void onView(View view);
}
