package org.bayeux.server.cluster;

/**
 * A session store refused a write for a session because another node owns it now (it adopted the session: the write
 * was fenced). The node that got it must drop its copy of the session silently.
 */
public class SessionFencedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what was refused */
    public SessionFencedException(String message) {
        super(message);
    }
}
