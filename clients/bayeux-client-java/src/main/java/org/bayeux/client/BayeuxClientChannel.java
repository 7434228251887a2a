package org.bayeux.client;

import java.util.concurrent.CompletableFuture;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;

/**
 * A {@link BayeuxClient}'s handle on a channel: the callback methods of {@link ClientSessionChannel}, and the same
 * operations returning a {@link CompletableFuture}.
 *
 * <p>Each future completes with the server's reply, successful or not (check {@link Message#isSuccessful()}), or
 * with a reply the client made up when none came (see {@link ClientErrors}); it never completes exceptionally.
 * Futures complete on the client's I/O threads: chain quick work, or pass an executor to the {@code ...Async}
 * methods of the future for slow work.</p>
 */
public interface BayeuxClientChannel extends ClientSessionChannel {
    /**
     * Subscribes a listener, as {@link #subscribe(MessageListener, MessageListener)}.
     *
     * @param listener called for each message delivered on this channel
     * @return the subscribe reply (a local success when the channel already had subscribers)
     */
    CompletableFuture<Message> subscribeAsync(MessageListener listener);

    /**
     * Unsubscribes a listener, as {@link #unsubscribe(MessageListener, MessageListener)}.
     *
     * @param listener the listener to remove
     * @return the unsubscribe reply (a local success when other subscribers remain)
     */
    CompletableFuture<Message> unsubscribeAsync(MessageListener listener);

    /**
     * Publishes data on this channel, as {@link #publish(Object, MessageListener)}.
     *
     * @param data the payload
     * @return the publish reply
     */
    CompletableFuture<Message> publishAsync(Object data);
}
