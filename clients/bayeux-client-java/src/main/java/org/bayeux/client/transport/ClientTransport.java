package org.bayeux.client.transport;

import java.time.Duration;
import java.util.List;

import org.bayeux.api.Message;

/**
 * One way of carrying a client's messages to the server and the server's messages back: long-polling over HTTP, or
 * WebSocket. A transport sends batches and hands every message it receives, replies and deliveries alike, to its
 * {@link TransportListener}; it reports each message that got no reply, for whatever reason, exactly once.
 *
 * <p>Transports never block: {@link #send(List, Duration)} returns at once. A transport reads the next response or
 * frame only after its listener has returned from the previous one, so a slow listener slows the reading instead of
 * filling memory.</p>
 */
public interface ClientTransport {
    /** The WebSocket transport's name, as in {@code supportedConnectionTypes}. */
    String WEBSOCKET = "websocket";
    /** The long-polling transport's name. */
    String LONG_POLLING = "long-polling";

    /** @return the name the protocol knows this transport by */
    String name();

    /**
     * Sends a batch; the replies, or the failure of the messages that got none, reach the listener later.
     *
     * @param batch the messages, in order, each with an {@code id}
     * @param replyTimeout how long to wait for the replies before reporting the messages as failed
     */
    void send(List<Message.Mutable> batch, Duration replyTimeout);

    /**
     * Closes the transport's connections, reporting every message still waiting for a reply as failed. The
     * transport may be used again afterwards: the next {@link #send(List, Duration)} opens new connections.
     *
     * @param reason why, reported with the failed messages
     */
    void close(Throwable reason);
}
