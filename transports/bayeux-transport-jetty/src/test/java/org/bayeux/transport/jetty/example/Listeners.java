package org.bayeux.transport.jetty.example;

// BEGIN listeners
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.api.server.SubscriptionListener;

/** Counts sessions and subscriptions, and shapes each remote session's queue. */
public final class Listeners {
    private final AtomicInteger sessions = new AtomicInteger();
    private final AtomicInteger subscriptions = new AtomicInteger();

    public Listeners(BayeuxServer server) {
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                sessions.incrementAndGet();
                if (!session.isLocalSession()) {
                    shapeQueue(session);
                }
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                sessions.decrementAndGet();
            }
        });
        server.addSubscriptionListener(new SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscriptions.incrementAndGet();
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscriptions.decrementAndGet();
            }
        });
        // Presence changes are not urgent: they wait (up to a second) for the next message or connect.
        server.createChannelIfAbsent("/chat/presence", channel -> {
            channel.setLazy(true);
            channel.setLazyTimeout(Duration.ofSeconds(1));
        });
    }

    private static void shapeQueue(ServerSession session) {
        // Typing indicators are dropped for a session that is already behind.
        session.addQueueListener((receiver, sender, message) ->
                !message.getChannel().equals("/chat/typing") || receiver.getQueueSize() < 10);
        // Of the quotes waiting for delivery, only each stock's newest is sent.
        session.addDeQueueListener((receiver, queue) -> {
            Map<String, ServerMessage> newest = new LinkedHashMap<>();
            for (Iterator<ServerMessage> it = queue.iterator(); it.hasNext(); ) {
                ServerMessage message = it.next();
                if (message.getChannel().startsWith("/quotes/")) {
                    newest.remove(message.getChannel());   // keeps the order of the newest
                    newest.put(message.getChannel(), message);
                    it.remove();
                }
            }
            queue.addAll(newest.values());
        });
        // A full queue gives up its oldest message rather than end the session.
        session.addMaxQueueListener((receiver, queue, sender, message) -> {
            queue.poll();
            return true;
        });
    }

    public int sessions() {
        return sessions.get();
    }

    public int subscriptions() {
        return subscriptions.get();
    }
}
// END listeners
