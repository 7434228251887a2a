package org.bayeux.server.cluster;

/**
 * A session store refused a write for a session because another node adopted it since: this node's copy is stale
 * (its {@linkplain SessionState#generation() generation} is no longer the current one). A store fails the stage of
 * {@link SessionStore#journal}, {@link SessionStore#writeNow} or {@link SessionStore#release} with it; the engine
 * then drops its copy silently (no {@code /meta/disconnect}, no {@link SessionStore#removed}) and sends nothing more
 * to the session's client, since the new owner delivers from now on.
 */
public class SessionFencedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what was refused; never a {@code clientId} */
    public SessionFencedException(String message) {
        super(message);
    }

    /**
     * @param failure a stage's failure, possibly wrapped ({@code CompletionException})
     * @return true if it or one of its causes is a fencing refusal
     */
    public static boolean isFenced(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SessionFencedException) {
                return true;
            }
        }
        return false;
    }
}
