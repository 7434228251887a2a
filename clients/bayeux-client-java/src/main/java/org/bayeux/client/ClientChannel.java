package org.bayeux.client;

import java.util.concurrent.CompletableFuture;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.support.AbstractClientSessionChannel;

/**
 * A client's handle on one channel: its listeners, its subscribers (kept by the shared base), and the messages it
 * sends.
 */
final class ClientChannel extends AbstractClientSessionChannel implements BayeuxClientChannel {
    private final ClientSession session;
    private final Outbox outbox;
    /** Kept by {@link ChannelTable} for dispatch; null until the first delivery. */
    volatile WildcardHandles wildcardHandles;

    ClientChannel(ClientSession session, Outbox outbox, ChannelId id) {
        super(id);
        this.session = session;
        this.outbox = outbox;
    }

    @Override
    public ClientSession getSession() {
        return session;
    }

    @Override
    public void subscribe(MessageListener listener, MessageListener callback) {
        if (getChannelId().isMeta()) {
            throw new IllegalArgumentException("Cannot subscribe to meta channel " + getChannelId()
                    + "; add a listener to it instead");
        }
        super.subscribe(listener, callback);
    }

    @Override
    protected void sendSubscription(String metaChannel, MessageListener subscriber, MessageListener callback) {
        outbox.submitSubscription(metaChannel, this, subscriber, callback);
    }

    @Override
    protected void invoke(MessageListener listener, Message message) {
        Callbacks.run(listener, () -> listener.onMessage(this, message));
    }

    @Override
    public void publish(Object data, MessageListener callback) {
        MapMessage message = new MapMessage();
        message.setData(data);
        publish(message, callback);
    }

    @Override
    public void publish(Message.Mutable message, MessageListener callback) {
        ChannelId id = getChannelId();
        if (id.isMeta() || id.isWildcard()) {
            throw new IllegalArgumentException("Cannot publish to " + id + ": not a meta channel nor a wildcard");
        }
        message.setChannel(id.name());
        outbox.submit(message, callback);
    }

    @Override
    public CompletableFuture<Message> subscribeAsync(MessageListener listener) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        subscribe(listener, (channel, message) -> reply.complete(message));
        return reply;
    }

    @Override
    public CompletableFuture<Message> unsubscribeAsync(MessageListener listener) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        unsubscribe(listener, (channel, message) -> reply.complete(message));
        return reply;
    }

    @Override
    public CompletableFuture<Message> publishAsync(Object data) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        publish(data, (channel, message) -> reply.complete(message));
        return reply;
    }

    @Override
    public String toString() {
        return "ClientChannel[" + getChannelId() + "]";
    }

    /** The handles of the wildcards matching a channel, as of a generation of the channel table. */
    record WildcardHandles(int generation, ClientChannel[] handles) {
    }
}
