package org.bayeux.client.transport;

import java.util.List;

import org.bayeux.api.Message;

/**
 * Receives what a {@link ClientTransport} reads, and the messages it could not get a reply for.
 */
public interface TransportListener {
    /**
     * Called with the messages of one response or frame, in order; the transport reads no more until it returns.
     *
     * @param transport the transport that read them
     * @param messages the messages: replies and deliveries
     */
    void onMessages(ClientTransport transport, List<Message.Mutable> messages);

    /**
     * Called once for messages sent that will get no reply: the connection failed, the server answered with an HTTP
     * error, the reply timed out, or the transport was closed.
     *
     * @param transport the transport that sent them
     * @param unanswered the messages without a reply
     * @param cause what went wrong
     */
    void onFailure(ClientTransport transport, List<Message.Mutable> unanswered, Throwable cause);
}
