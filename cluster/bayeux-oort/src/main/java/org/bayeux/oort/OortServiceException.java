package org.bayeux.oort;

/**
 * Why an {@link OortService} call failed; the call's stage completes exceptionally with it.
 */
public class OortServiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Reason {
        /** The owner is not a joined member now (stopped, crashed, unreachable, or never joined): failed at once. */
        NOT_JOINED,
        /** The owner left while the call waited for its answer: failed when it left. */
        LEFT,
        /** The owner did not answer within the service's timeout. */
        TIMEOUT,
        /** The owner's handler failed; the message is the owner's. */
        FAILED,
        /** The call could not be sent: its link holds too much, or the request is too large. */
        NOT_SENT,
        /** Too many calls of this service wait for answers already. */
        OVERLOADED
    }

    private final Reason reason;

    /**
     * @param reason what went wrong
     * @param message what, for the log
     * @param cause the failure underneath, or null
     */
    public OortServiceException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** @return what went wrong */
    public Reason reason() {
        return reason;
    }
}
