package io.weft.membership;

/**
 * The group refused this member: {@link GroupBuilder#open()} of a member whose group runs already (start it as a
 * joiner), or a join or a state fetch refused (no or a different secret, joins disabled, an id outside the address
 * book, a fetch the member does not serve), the message naming who refused and why. Nothing was started.
 */
public final class GroupRefusedException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** The refusal, with {@code message} saying who refused and why. */
    public GroupRefusedException(final String message)
    {
        super(message);
    }
}
