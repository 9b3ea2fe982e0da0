package io.weft.testkit;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link RegisterHistory} for tests in other packages: record reads and writes, then check. */
public final class RegisterHistoryAccess
{
    private final RegisterHistory history = new RegisterHistory();
    private final AtomicInteger unknown = new AtomicInteger();

    /** A write; {@code ret} {@link Long#MAX_VALUE} if its outcome is unknown. */
    public void write(final String key, final int client, final long call, final long ret, final String value)
    {
        unknown.addAndGet(ret == Long.MAX_VALUE ? 1 : 0);
        history.add(new RegisterHistory.Op(key, client, call, ret, true, value));
    }

    public void read(final String key, final int client, final long call, final long ret, final String value)
    {
        history.add(new RegisterHistory.Op(key, client, call, ret, false, value));
    }

    public int size()
    {
        return history.size();
    }

    public int unknown()
    {
        return unknown.get();
    }

    public List<String> violations()
    {
        return history.violations();
    }
}
