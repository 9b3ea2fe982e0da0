package io.weft.membership;

import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.util.HashMap;
import java.util.Map;

/**
 * The columns the view-change protocol adds to each view's table:
 * <pre>
 *   heartbeat          counter  failure detection
 *   leaving, finished  bool     graceful leave requested; run finished (shutdown barrier)
 *   suspected[n]       bool     suspicions, ORed over every trusted row
 *   wedged, done       bool     stopped multicasting; delivered the trim of every subgroup
 *   changes[]          counter  proposed changes ({@link ChangeList} entries)
 *   numChanges, numAcked, numCommitted   counters, contiguous (one push); -1 (never written) reads as 0
 *   &lt;subgroup&gt;.trim[senders], &lt;subgroup&gt;.trimReady   ragged-edge cleanup
 * </pre>
 * Each column has one writer thread, so that a push never carries a stale copy of a value another thread set (on
 * shm a push is a plain copy): heartbeat the failure detector; leaving and finished the application thread that
 * leaves or finishes; everything else, suspicions included, the membership thread.
 */
final class MembershipColumns
{
    /** Room for removing every member and admitting as many joiners. */
    static final int MAX_CHANGES = 2 * io.weft.config.GroupConfig.MAX_MEMBERS;

    final Column heartbeat;
    final Column leaving;
    final Column finished;
    final Column suspected;
    final Column wedged;
    final Column done;
    final Column changes;
    final Column numChanges;
    final Column numAcked;
    final Column numCommitted;
    private final Map<String, Column> trim = new HashMap<>();
    private final Map<String, Column> trimReady = new HashMap<>();

    /** Finds the columns {@link #declare} added in {@code layout}. */
    MembershipColumns(final SstLayout layout, final Iterable<String> subgroups)
    {
        heartbeat = layout.column("heartbeat");
        leaving = layout.column("leaving");
        finished = layout.column("finished");
        suspected = layout.column("suspected");
        wedged = layout.column("wedged");
        done = layout.column("done");
        changes = layout.column("changes");
        numChanges = layout.column("numChanges");
        numAcked = layout.column("numAcked");
        numCommitted = layout.column("numCommitted");
        for (final String name : subgroups)
        {
            trim.put(name, layout.column(name + ".trim"));
            trimReady.put(name, layout.column(name + ".trimReady"));
        }
    }

    /** Adds the columns to a layout: {@code members} rows, and the senders of each subgroup by name. */
    static SstLayout.Builder declare(final int members, final Map<String, Integer> sendersBySubgroup)
    {
        final SstLayout.Builder b = SstLayout.builder()
            .counter("heartbeat").bool("leaving").bool("finished").bools("suspected", members)
            .bool("wedged").bool("done")
            .counters("changes", MAX_CHANGES).counter("numChanges").counter("numAcked").counter("numCommitted");
        sendersBySubgroup.forEach((name, senders) -> b.counters(name + ".trim", senders).counter(name + ".trimReady"));
        return b;
    }

    /** Declares each column's single writer to the table, which checks it in test runs ({@link Sst#oneWriter}). */
    void oneWriterEach(final Sst sst)
    {
        for (final Column c : new Column[] {heartbeat, leaving, finished, suspected, wedged, done, changes, numChanges,
            numAcked, numCommitted})
        {
            sst.oneWriter(c);
        }
        trim.values().forEach(sst::oneWriter);
        trimReady.values().forEach(sst::oneWriter);
    }

    Column trim(final String subgroup)
    {
        return trim.get(subgroup);
    }

    Column trimReady(final String subgroup)
    {
        return trimReady.get(subgroup);
    }
}
