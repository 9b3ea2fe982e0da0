package io.weft.membership;

/** Told of every view this member installs, the first one included, before any delivery in it. */
@FunctionalInterface
public interface ViewListener
{
    void onView(View view);
}
