package org.bayeux.server.cluster;

import java.util.regex.Pattern;

/**
 * Completes a {@link Cluster#publish} stage exceptionally when the cluster cannot take messages at all for now (its
 * backplane or its peers are out of reach), as opposed to refusing this one message (a stage completed false). The
 * publisher is then answered {@code 503::<reason>}, e.g. {@code 503::backplane_unavailable}, which tells a client to
 * retry later; the node's local work goes on.
 */
public class ClusterUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Pattern REASON = Pattern.compile("[a-z][a-z0-9_]*");

    private final String reason;

    /**
     * @param reason the error's last part, a lower-case word with underscores, e.g. {@code backplane_unavailable}
     * @param message what went wrong, for the log; no message body or clientId
     * @param cause the failure underneath, or null
     */
    public ClusterUnavailableException(String reason, String message, Throwable cause) {
        super(message, cause);
        if (reason == null || !REASON.matcher(reason).matches()) {
            throw new IllegalArgumentException("reason must be a lower-case word with underscores: " + reason);
        }
        this.reason = reason;
    }

    /** @return the error's last part, as in {@code 503::<reason>} */
    public String reason() {
        return reason;
    }
}
