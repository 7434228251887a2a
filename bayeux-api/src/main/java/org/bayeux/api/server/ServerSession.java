package org.bayeux.api.server;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.bayeux.api.Promise;
import org.bayeux.api.Session;

/**
 * The server's view of one client session, remote or {@link LocalSession local}.
 *
 * <p>Each session has one lock and one queue of messages waiting for delivery. {@link QueueListener},
 * {@link DeQueueListener} and {@link MaxQueueListener} run under that lock: they must be quick and must not
 * deliver to, or take the lock of, another session.</p>
 */
public interface ServerSession extends Session {
    /** The life of a session. */
    enum State {
        /** Handshake accepted, no connect yet. */
        HANDSHAKEN,
        /** At least one connect received. */
        CONNECTED,
        /** Ended by a disconnect, by the server, or by the application. */
        DISCONNECTED,
        /** Ended because it stopped connecting for longer than its max interval. */
        EXPIRED,
        /**
         * Ended here because another node now owns it (it adopted the session while this node was paused or cut off
         * from the store): its client carries on there, so it was told nothing.
         */
        MOVED;

        /** @return true for the end states */
        public boolean isEnded() {
            return this == DISCONNECTED || this == EXPIRED || this == MOVED;
        }
    }

    /** @return the session's state now */
    State getState();

    /**
     * Delivers a message to this session only, bypassing subscriptions.
     *
     * @param sender the session it is from, or null
     * @param message the message
     * @param promise completed with true if it was queued, false if an extension or listener dropped it
     */
    void deliver(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise);

    /**
     * Delivers data on a channel to this session only.
     *
     * @param sender the session it is from, or null
     * @param channel the channel name
     * @param data the payload
     * @param promise completed with true if it was queued
     */
    void deliver(Session sender, String channel, Object data, Promise<Boolean> promise);

    /** @return the channels this session is subscribed to */
    Set<ServerChannel> getSubscriptions();

    /** @return true for a server-side session made by {@link BayeuxServer#newLocalSession(String)} */
    boolean isLocalSession();

    /** @return the local session of a server-side session, otherwise null */
    LocalSession getLocalSession();

    /** @return the name of the transport that last carried this session, or null */
    String getTransportName();

    /** @return the number of messages waiting for delivery */
    int getQueueSize();

    /**
     * @return the JSON bytes of the messages waiting in the queue (not counting what a socket has yet to write);
     *         0 for a local session
     */
    long getQueueBytes();

    /**
     * @param extension an extension for this session's messages; extensions run in the order added
     */
    void addExtension(SessionExtension extension);

    /**
     * @param extension the extension to remove
     */
    void removeExtension(SessionExtension extension);

    /** @return this session's extensions */
    List<SessionExtension> getExtensions();

    /**
     * @param listener told before a message is queued; may refuse it
     */
    void addQueueListener(QueueListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeQueueListener(QueueListener listener);

    /**
     * @param listener told when the queue is taken for delivery; may rewrite it
     */
    void addDeQueueListener(DeQueueListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeDeQueueListener(DeQueueListener listener);

    /**
     * @param listener told when the queue is full
     */
    void addMaxQueueListener(MaxQueueListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeMaxQueueListener(MaxQueueListener listener);

    /**
     * @param listener told of each message delivered to this session; may drop it
     */
    void addMessageListener(SessionMessageListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeMessageListener(SessionMessageListener listener);

    /**
     * @param listener told once when this session ends
     */
    void addRemovedListener(SessionRemovedListener listener);

    /**
     * @param listener the listener to remove
     */
    void removeRemovedListener(SessionRemovedListener listener);

    /** @return the wait between connects advised to this session */
    Duration getInterval();

    /**
     * @param interval the wait between connects to advise, or null for the server's
     */
    void setInterval(Duration interval);

    /** @return how long the server holds this session's connects */
    Duration getTimeout();

    /**
     * @param timeout how long to hold connects, or null for the server's
     */
    void setTimeout(Duration timeout);

    /** @return how long the session survives without a connect */
    Duration getMaxInterval();

    /**
     * @param maxInterval how long the session survives without a connect, or null for the server's
     */
    void setMaxInterval(Duration maxInterval);

    /** @return the most messages the queue holds before {@link MaxQueueListener}s or the max-queue policy act */
    int getMaxQueue();

    /**
     * @param maxQueue the queue limit, at least 1, or -1 for the server's
     */
    void setMaxQueue(int maxQueue);

    /**
     * @return the most JSON bytes that may wait for this session, in its queue and in its socket's unwritten
     *         backlog together, before {@link MaxQueueListener}s or the max-queue policy act
     */
    int getMaxQueueBytes();

    /**
     * @param maxQueueBytes the byte limit, at least 1024, or -1 for the server's {@code maxQueueBytes}
     */
    void setMaxQueueBytes(int maxQueueBytes);

    /** @return true if this session receives its own publishes on channels it is subscribed to */
    boolean isBroadcastToPublisher();

    /**
     * @param broadcastToPublisher whether this session receives its own publishes
     */
    void setBroadcastToPublisher(boolean broadcastToPublisher);

    /** @return true if messages go to this session only inside {@code /meta/connect} replies */
    boolean isMetaConnectDeliveryOnly();

    /**
     * @param metaConnectDeliveryOnly whether messages go only inside connect replies (the {@code ack} extension
     *                                sets this)
     */
    void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly);
}
