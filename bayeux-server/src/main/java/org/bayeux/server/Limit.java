package org.bayeux.server;

/**
 * The limits the engine enforces on what clients send, each with the Bayeux error a refused message gets. Their
 * values are keys of {@link org.bayeux.server.config.BayeuxServerConfig}; each refusal is counted in
 * {@link LimitCounters}.
 */
public enum Limit {
    /** A channel name longer than {@code maxChannelNameLength} characters. */
    CHANNEL_NAME_LENGTH(405, "channel_length_limit"),
    /** A channel name with more than {@code maxChannelSegments} segments. */
    CHANNEL_SEGMENTS(405, "channel_segments_limit"),
    /** A subscription beyond {@code maxSubscriptionsPerSession}. */
    SUBSCRIPTIONS_PER_SESSION(403, "subscription_limit"),
    /** A channel creation while the server holds {@code maxChannels} channels. */
    CHANNELS(403, "channel_limit"),
    /** A channel creation beyond a session's {@code maxChannelCreationsPerSecond}. */
    CHANNEL_CREATION_RATE(403, "channel_rate_limit"),
    /** A batch of more than {@code maxMessagesPerBatch} messages. */
    MESSAGES_PER_BATCH(413, "batch_limit");

    private final int code;
    private final String token;
    private final String error;

    Limit(int code, String token) {
        this.code = code;
        this.token = token;
        this.error = code + "::" + token;
    }

    /** @return the three-digit code of the error */
    public int code() {
        return code;
    }

    /** @return the error token, such as {@code subscription_limit} */
    public String token() {
        return token;
    }

    /** @return the whole Bayeux error string a refused message gets, such as {@code 403::subscription_limit} */
    public String error() {
        return error;
    }
}
