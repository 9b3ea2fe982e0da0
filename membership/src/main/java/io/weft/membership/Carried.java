package io.weft.membership;

import java.util.List;

/**
 * What this member carries from a view into the next in one subgroup: its messages outside the view's trim (in
 * order, the first with index {@code firstIndex}), sent again, and its read fences that did not pass, asked again
 * each in its place among them: fence k before this member's message of index {@code nextOwnIndices[k]}.
 */
record Carried(long firstIndex, List<byte[]> messages, long[] tickets, long[] nextOwnIndices, long lastTicket)
{
    boolean isEmpty()
    {
        return messages.isEmpty() && tickets.length == 0;
    }
}
