package org.bayeux.api;

import java.util.Map;

/**
 * A Bayeux message: a JSON object whose well-known fields have typed accessors.
 *
 * <p>A message is a {@link Map} from field name to JSON value (String, Number, Boolean, null, {@code Map} or
 * {@code List}); unknown fields are kept and relayed. This view is read-only by contract; {@link Mutable} adds
 * setters.</p>
 */
public interface Message extends Map<String, Object> {
    /** Field {@value}: the channel name. */
    String CHANNEL_FIELD = "channel";
    /** Field {@value}: the message id, opaque, echoed in replies. */
    String ID_FIELD = "id";
    /** Field {@value}: the session id made by the server. */
    String CLIENT_ID_FIELD = "clientId";
    /** Field {@value}: the application payload. */
    String DATA_FIELD = "data";
    /** Field {@value}: whether a request succeeded; present in replies only. */
    String SUCCESSFUL_FIELD = "successful";
    /** Field {@value}: an error string {@code code:args:message}. */
    String ERROR_FIELD = "error";
    /** Field {@value}: connection advice. */
    String ADVICE_FIELD = "advice";
    /** Field {@value}: extension data keyed by extension name. */
    String EXT_FIELD = "ext";
    /** Field {@value}: the channel or channels of a subscribe or unsubscribe. */
    String SUBSCRIPTION_FIELD = "subscription";
    /** Field {@value}: the connection type of a connect. */
    String CONNECTION_TYPE_FIELD = "connectionType";
    /** Field {@value}: the connection types of a handshake and its reply. */
    String SUPPORTED_CONNECTION_TYPES_FIELD = "supportedConnectionTypes";
    /** Field {@value}: the protocol version of a handshake. */
    String VERSION_FIELD = "version";
    /** Field {@value}: the lowest protocol version a handshake accepts. */
    String MIN_VERSION_FIELD = "minimumVersion";
    /** Field {@value}: an opaque time stamp. */
    String TIMESTAMP_FIELD = "timestamp";

    /** Advice field {@value}: what to do after this reply. */
    String RECONNECT_FIELD = "reconnect";
    /** Advice field {@value}: milliseconds to wait before the next connect. */
    String INTERVAL_FIELD = "interval";
    /** Advice field {@value}: milliseconds the server holds a connect. */
    String TIMEOUT_FIELD = "timeout";
    /** Advice field {@value}: milliseconds a session survives without a connect. */
    String MAX_INTERVAL_FIELD = "maxInterval";
    /** Advice field {@value}: another session of the same browser holds a long poll. */
    String MULTIPLE_CLIENTS_FIELD = "multiple-clients";
    /** Advice value {@value}: connect again after the interval. */
    String RECONNECT_RETRY = "retry";
    /** Advice value {@value}: the session is gone; handshake again. */
    String RECONNECT_HANDSHAKE = "handshake";
    /** Advice value {@value}: stop, no automatic retry. */
    String RECONNECT_NONE = "none";

    /** Channel {@value}. */
    String META_HANDSHAKE = "/meta/handshake";
    /** Channel {@value}. */
    String META_CONNECT = "/meta/connect";
    /** Channel {@value}. */
    String META_SUBSCRIBE = "/meta/subscribe";
    /** Channel {@value}. */
    String META_UNSUBSCRIBE = "/meta/unsubscribe";
    /** Channel {@value}. */
    String META_DISCONNECT = "/meta/disconnect";

    /** @return the channel name, or null if absent or not a string */
    default String getChannel() {
        Object channel = get(CHANNEL_FIELD);
        return channel instanceof String ? (String) channel : null;
    }

    /** @return the message id as a string (a number id is converted), or null */
    default String getId() {
        Object id = get(ID_FIELD);
        return id == null ? null : id.toString();
    }

    /** @return the session id, or null */
    default String getClientId() {
        Object id = get(CLIENT_ID_FIELD);
        return id instanceof String ? (String) id : null;
    }

    /** @return the payload, or null */
    default Object getData() {
        return get(DATA_FIELD);
    }

    /**
     * @return the payload if it is a JSON object, otherwise null
     */
    @SuppressWarnings("unchecked")
    default Map<String, Object> getDataAsMap() {
        Object data = get(DATA_FIELD);
        return data instanceof Map ? (Map<String, Object>) data : null;
    }

    /** @return true if the {@code successful} field is {@code true} */
    default boolean isSuccessful() {
        return Boolean.TRUE.equals(get(SUCCESSFUL_FIELD));
    }

    /** @return the error string, or null */
    default String getError() {
        Object error = get(ERROR_FIELD);
        return error == null ? null : error.toString();
    }

    /** @return the advice object, or null */
    @SuppressWarnings("unchecked")
    default Map<String, Object> getAdvice() {
        Object advice = get(ADVICE_FIELD);
        return advice instanceof Map ? (Map<String, Object>) advice : null;
    }

    /** @return the extension object, or null */
    @SuppressWarnings("unchecked")
    default Map<String, Object> getExt() {
        Object ext = get(EXT_FIELD);
        return ext instanceof Map ? (Map<String, Object>) ext : null;
    }

    /** @return true if the channel is a {@code /meta/} channel */
    default boolean isMeta() {
        String channel = getChannel();
        return channel != null && channel.startsWith(ChannelId.META_PREFIX);
    }

    /** @return true if the channel is a {@code /service/} channel */
    default boolean isService() {
        String channel = getChannel();
        return channel != null && channel.startsWith(ChannelId.SERVICE_PREFIX);
    }

    /** @return true if this message is a reply, that is, it has a {@code successful} field */
    default boolean isReply() {
        return containsKey(SUCCESSFUL_FIELD);
    }

    /** @return true if this message carries application data (a publish or a delivery) */
    default boolean isPublish() {
        return containsKey(DATA_FIELD);
    }

    /**
     * A message whose fields may be changed.
     */
    interface Mutable extends Message {
        /**
         * @param channel the channel name
         */
        default void setChannel(String channel) {
            put(CHANNEL_FIELD, channel);
        }

        /**
         * @param id the message id, or null to remove it
         */
        default void setId(String id) {
            putOrRemove(ID_FIELD, id);
        }

        /**
         * @param clientId the session id, or null to remove it
         */
        default void setClientId(String clientId) {
            putOrRemove(CLIENT_ID_FIELD, clientId);
        }

        /**
         * @param data the payload; null is kept as JSON null
         */
        default void setData(Object data) {
            put(DATA_FIELD, data);
        }

        /**
         * @param successful whether the request succeeded
         */
        default void setSuccessful(boolean successful) {
            put(SUCCESSFUL_FIELD, successful);
        }

        /**
         * @param error the error string {@code code:args:message}, or null to remove it
         */
        default void setError(String error) {
            putOrRemove(ERROR_FIELD, error);
        }

        /**
         * @param create whether to add an empty advice object when there is none
         * @return the advice object, or null if absent and {@code create} is false
         */
        default Map<String, Object> getAdvice(boolean create) {
            Map<String, Object> advice = getAdvice();
            if (advice == null && create) {
                advice = new java.util.HashMap<>(8);
                put(ADVICE_FIELD, advice);
            }
            return advice;
        }

        /**
         * @param create whether to add an empty extension object when there is none
         * @return the extension object, or null if absent and {@code create} is false
         */
        default Map<String, Object> getExt(boolean create) {
            Map<String, Object> ext = getExt();
            if (ext == null && create) {
                ext = new java.util.HashMap<>(4);
                put(EXT_FIELD, ext);
            }
            return ext;
        }

        /**
         * Puts a value, or removes the field when the value is null.
         *
         * @param field the field name
         * @param value the value, or null
         */
        default void putOrRemove(String field, Object value) {
            if (value == null) {
                remove(field);
            } else {
                put(field, value);
            }
        }
    }
}
