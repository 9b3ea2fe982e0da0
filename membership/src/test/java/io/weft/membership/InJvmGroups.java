package io.weft.membership;

import io.weft.testkit.Async;
import io.weft.testkit.Await;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Helpers of the in-JVM group tests: open members together, wait on a condition with a deadline. */
final class InJvmGroups
{
    private static final Duration VIEW_CHANGE_TIMEOUT = Duration.ofSeconds(60);

    private InJvmGroups()
    {
    }

    /** Opens every builder's member at once (each waits for the others) and returns them in order. */
    static List<Group> open(final List<GroupBuilder> builders) throws Exception
    {
        return Async.openAll(builders.stream().<Supplier<Group>>map(b -> b::open).toList());
    }

    /** Waits up to 60 s (a view change on a loaded two-core machine) for {@code condition}, naming {@code what}. */
    static void await(final BooleanSupplier condition, final String what)
    {
        Await.until(condition, VIEW_CHANGE_TIMEOUT, what);
    }
}
