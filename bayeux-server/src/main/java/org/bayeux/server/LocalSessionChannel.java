package org.bayeux.server;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.support.AbstractClientSessionChannel;
import org.bayeux.server.internal.Callbacks;

/**
 * A local session's handle on a channel: its listeners and subscribers are kept by the shared base; subscriptions
 * and publishes go to the engine through the session.
 */
final class LocalSessionChannel extends AbstractClientSessionChannel {
    private final LocalSessionImpl session;

    LocalSessionChannel(LocalSessionImpl session, ChannelId id) {
        super(id);
        this.session = session;
    }

    @Override
    public ClientSession getSession() {
        return session;
    }

    @Override
    protected void sendSubscription(String metaChannel, MessageListener subscriber, MessageListener callback) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(metaChannel);
        message.put(Message.SUBSCRIPTION_FIELD, getChannelId().name());
        session.send(message, callback);
    }

    @Override
    protected void invoke(MessageListener listener, Message message) {
        Callbacks.run(listener, () -> listener.onMessage(this, message));
    }

    /** A local reply reaches the callback directly, inside the caller's {@code subscribe} or {@code unsubscribe}. */
    @Override
    protected void replyLocally(MessageListener callback, Message reply) {
        callback.onMessage(this, reply);
    }

    @Override
    public void publish(Object data, MessageListener callback) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setData(data);
        publish(message, callback);
    }

    @Override
    public void publish(Message.Mutable message, MessageListener callback) {
        ServerMessageImpl outgoing = message instanceof ServerMessageImpl ? (ServerMessageImpl) message
                : new ServerMessageImpl(message);
        outgoing.setChannel(getChannelId().name());
        session.send(outgoing, callback);
    }

    @Override
    public String toString() {
        return "LocalSessionChannel[" + getChannelId() + "]";
    }
}
