package org.bayeux.interop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;

/**
 * Makes the server read a client's {@code /meta/connect} after its {@code /meta/disconnect}, and send the disconnect
 * reply after the connect reply: each connect waits until a session has been removed, and each disconnect reply
 * waits until a connect has been answered. Both waits end after {@link #LIMIT} at the latest, so that nothing hangs.
 */
final class ConnectAfterDisconnect implements ServerExtension {
    private static final Duration LIMIT = Duration.ofSeconds(5);

    private final CompletableFuture<Void> sessionRemoved = new CompletableFuture<>();
    private final CompletableFuture<Void> connectAnswered = new CompletableFuture<>();
    private final List<String> lateConnectReplies = new CopyOnWriteArrayList<>();

    ConnectAfterDisconnect(BayeuxServer server) {
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                sessionRemoved.complete(null);
            }
        });
    }

    @Override
    public void incoming(ServerSession session, ServerMessage.Mutable message, Promise<Boolean> promise) {
        if (Message.META_CONNECT.equals(message.getChannel())) {
            sessionRemoved.completeOnTimeout(null, LIMIT.toMillis(), TimeUnit.MILLISECONDS)
                    .thenRun(() -> promise.succeed(true));
        } else {
            promise.succeed(true);
        }
    }

    @Override
    public void outgoing(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message,
            Promise<Boolean> promise) {
        String channel = message.getChannel();
        if (Message.META_CONNECT.equals(channel)) {
            if (sessionRemoved.isDone()) {
                lateConnectReplies.add(message.isSuccessful() ? "successful, reconnect " + reconnectOf(message)
                        : String.valueOf(message.get(Message.ERROR_FIELD)));
            }
            promise.succeed(true);
            connectAnswered.complete(null);
        } else if (Message.META_DISCONNECT.equals(channel)) {
            connectAnswered.completeOnTimeout(null, LIMIT.toMillis(), TimeUnit.MILLISECONDS)
                    .thenRun(() -> promise.succeed(true));
        } else {
            promise.succeed(true);
        }
    }

    /**
     * @return each connect reply that left after a session was removed, in order: its error, or "successful,
     *         reconnect none" for a connect that was held when the session ended
     */
    List<String> lateConnectReplies() {
        return List.copyOf(lateConnectReplies);
    }

    private static Object reconnectOf(ServerMessage reply) {
        java.util.Map<String, Object> advice = reply.getAdvice();
        return advice == null ? null : advice.get(Message.RECONNECT_FIELD);
    }
}
