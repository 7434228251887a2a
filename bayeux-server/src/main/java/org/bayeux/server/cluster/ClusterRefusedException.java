package org.bayeux.server.cluster;

import java.util.regex.Pattern;

/**
 * Completes a {@link Cluster#publish} stage exceptionally when the cluster refuses this one message for a reason of
 * its own that the publisher should be told (a message too large for the cluster's links, say), as opposed to being
 * out of reach ({@link ClusterUnavailableException}) or refusing it without a reason (a stage completed false, answered
 * {@code 404::message_deleted}). The publisher is answered {@code <code>::<reason>}; retrying the same message does not
 * help.
 */
public class ClusterRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Pattern REASON = Pattern.compile("[a-z][a-z0-9_]*");

    private final int code;
    private final String reason;

    /**
     * @param code the error's code, from 400 to 499
     * @param reason the error's last part, a lower-case word with underscores, e.g. {@code oort_message_too_large}
     * @param message what went wrong, for the log; no message body or clientId
     */
    public ClusterRefusedException(int code, String reason, String message) {
        super(message, null, false, false);
        if (code < 400 || code > 499) {
            throw new IllegalArgumentException("code must be from 400 to 499: " + code);
        }
        if (reason == null || !REASON.matcher(reason).matches()) {
            throw new IllegalArgumentException("reason must be a lower-case word with underscores: " + reason);
        }
        this.code = code;
        this.reason = reason;
    }

    /** @return the error's code, as in {@code <code>::<reason>} */
    public int code() {
        return code;
    }

    /** @return the error's last part, as in {@code <code>::<reason>} */
    public String reason() {
        return reason;
    }
}
