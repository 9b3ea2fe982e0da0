package io.weft.membership;

/**
 * A send issued while a view change is in progress, with {@code weft.membership.send-during-view-change = fail}.
 * Nothing was sent; send again (it goes into the next view).
 */
public final class ViewChangeException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** The refusal, with {@code message} saying which send and which view change. */
    public ViewChangeException(final String message)
    {
        super(message);
    }
}
