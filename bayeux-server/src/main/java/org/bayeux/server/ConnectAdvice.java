package org.bayeux.server;

import java.util.Map;

import org.bayeux.api.Message;

/**
 * What a session's client was last advised in a connect reply, so that connect replies carry the advice only when
 * the client needs it. Clients keep the last advice they received; sending it again in every reply, as a nested
 * object of four fields, costs each long poll about 80 bytes to encode, write and parse on both sides. CometD's
 * server also leaves it out when nothing changed, so every client copes with its absence.
 *
 * <p>Guarded by the session's lock.</p>
 */
final class ConnectAdvice {
    private static final long NOT_ADVISED = -1;

    private long timeoutMillis = NOT_ADVISED;
    private long intervalMillis = NOT_ADVISED;
    private long maxIntervalMillis = NOT_ADVISED;

    /**
     * @param session the session whose connect is answered
     * @param clientAskedTimeout whether the connect carried its own {@code advice.timeout}: the client is told the
     *        one in force
     * @param refusal advice fields refusing to hold this connect, or null
     * @return the advice for the reply, or null to leave it out
     */
    Map<String, Object> forReply(ServerSessionImpl session, boolean clientAskedTimeout, Map<String, Object> refusal) {
        long timeout = session.getTimeout().toMillis();
        long interval = session.getInterval().toMillis();
        long maxInterval = session.getMaxInterval().toMillis();
        boolean unchanged = timeout == timeoutMillis && interval == intervalMillis && maxInterval == maxIntervalMillis;
        if (unchanged && !clientAskedTimeout && refusal == null) {
            return null;
        }
        Map<String, Object> advice = MetaHandlers.fullAdvice(session, Message.RECONNECT_RETRY);
        if (refusal != null) {
            advice.putAll(refusal);
            // The client now holds the refusal's interval: the next reply must give it the session's advice back.
            timeoutMillis = NOT_ADVISED;
            intervalMillis = NOT_ADVISED;
            maxIntervalMillis = NOT_ADVISED;
        } else {
            timeoutMillis = timeout;
            intervalMillis = interval;
            maxIntervalMillis = maxInterval;
        }
        return advice;
    }
}
