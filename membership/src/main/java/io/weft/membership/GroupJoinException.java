package io.weft.membership;

/**
 * A join that did not complete: no member admitted this one within {@code weft.membership.join-timeout} (none
 * answered, or each turned it away for now), or it was admitted and its state did not arrive whole (the member that
 * sent it failed, or the installer asked for nothing for a join timeout and was cut off). The message names the last
 * answer or the failure. Nothing was started: the group goes on without this member, and a later
 * {@link GroupBuilder#join()} may succeed.
 */
public final class GroupJoinException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** The join's failure, with {@code message} naming the last answer and {@code cause} any failure behind it. */
    public GroupJoinException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
