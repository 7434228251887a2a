package org.bayeux.interop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSession;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee10.websocket.jakarta.client.JakartaWebSocketClientContainer;

/**
 * The CometD Java client (unmodified, through its public API), with the waiting that tests need: each call
 * returns once the server's reply arrived, or fails after a bounded time. Like a CometD application, it subscribes
 * again after a re-handshake, from a {@code /meta/handshake} listener.
 */
final class CometDJavaClient implements AutoCloseable {
    static final String NAME = "cometd-java";
    private static final long WAIT_MILLIS = 15_000;
    /** The largest message the client accepts over WebSocket. */
    static final int MAX_MESSAGE_BYTES = 1024 * 1024;

    final BayeuxClient bayeux;
    /** Every clientId the server gave this client, in order. */
    final List<String> clientIds = new CopyOnWriteArrayList<>();
    /** The connectionType of every /meta/connect sent, to prove which transport carried the session. */
    final Set<String> connectionTypes = ConcurrentHashMap.newKeySet();
    private final HttpClient http;
    /** Jetty's Jakarta WebSocket client over {@link #http}, for CometD's Jakarta WebSocket transport. */
    private final JakartaWebSocketClientContainer webSocketClient;
    private final Map<String, ClientSessionChannel.MessageListener> subscriptions = new ConcurrentHashMap<>();

    /**
     * @param url the Bayeux endpoint
     * @param transport the transport to use
     * @throws Exception if the HTTP client cannot start
     */
    CometDJavaClient(String url, String transport) throws Exception {
        this(url, transport, Map.of());
    }

    /**
     * @param url the Bayeux endpoint
     * @param transport the transport to use
     * @param options CometD client transport options, such as {@link ClientTransport#JSON_CONTEXT_OPTION}
     * @throws Exception if the HTTP client cannot start
     */
    CometDJavaClient(String url, String transport, Map<String, Object> options) throws Exception {
        // One HTTP client (so one cookie jar) per Bayeux client, as separate applications would have.
        http = new HttpClient();
        http.start();
        webSocketClient = new JakartaWebSocketClientContainer(http);
        webSocketClient.start();
        bayeux = new BayeuxClient(url, transport(transport, http, webSocketClient, options));
        bayeux.addExtension(new ClientSession.Extension() {
            @Override
            public boolean sendMeta(ClientSession session, Message.Mutable message) {
                if (Channel.META_CONNECT.equals(message.getChannel())) {
                    connectionTypes.add(String.valueOf(message.get(Message.CONNECTION_TYPE_FIELD)));
                }
                return true;
            }
        });
        bayeux.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, reply) -> {
            if (!reply.isSuccessful()) {
                return;
            }
            clientIds.add(reply.getClientId());
            if (clientIds.size() > 1) {
                bayeux.batch(() -> subscriptions.forEach((name, listener) -> bayeux.getChannel(name).subscribe(listener)));
            }
        });
    }

    /**
     * Makes the CometD client transport for a transport name of {@link Interop#TRANSPORTS}. For "websocket",
     * CometD's Jakarta WebSocket transport (for CometD 8.0, Maven Central has no Jetty one) over Jetty's Jakarta
     * WebSocket client.
     *
     * @param name the transport name
     * @param http the HTTP client for long-polling
     * @param webSocketClient the WebSocket client for WebSocket
     * @param options the transport options
     * @return the transport
     */
    static ClientTransport transport(String name, HttpClient http, JakartaWebSocketClientContainer webSocketClient,
            Map<String, Object> options) {
        return switch (name) {
            case "long-polling" -> new JettyHttpClientTransport(new HashMap<>(options), http);
            case "websocket" -> {
                Map<String, Object> webSocketOptions = new HashMap<>(options);
                // Like its long-polling transport's 1 MiB, not the Jakarta container's 64 KiB default, which fails
                // every larger message from any server (a server sends a message whole in one WebSocket message).
                webSocketOptions.putIfAbsent("maxMessageSize", MAX_MESSAGE_BYTES);
                yield new WebSocketTransport(webSocketOptions, null, webSocketClient);
            }
            default -> throw new IllegalArgumentException("No CometD Java client transport for '" + name + "'");
        };
    }

    /** @return the clientId, once the handshake succeeded and the client is connected */
    String handshake() {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.handshake(reply::complete);
        Message handshake = await(reply, "handshake reply");
        if (!handshake.isSuccessful()) {
            throw new AssertionError("Handshake failed: " + handshake);
        }
        if (!bayeux.waitFor(WAIT_MILLIS, BayeuxClient.State.CONNECTED)) {
            throw new AssertionError("Not connected after the handshake: " + bayeux);
        }
        return handshake.getClientId();
    }

    /**
     * Subscribes, and waits for the server's reply.
     *
     * @param channel the channel or pattern
     * @return the messages received through this subscription, in order
     */
    BlockingQueue<Message> subscribe(String channel) {
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        subscribe(channel, (from, message) -> received.add(message));
        return received;
    }

    /**
     * Subscribes with a listener of the caller's, and waits for the server's reply; the listener is subscribed
     * again after a re-handshake.
     *
     * @param channel the channel or pattern
     * @param listener told every message received through this subscription, on the client's thread
     */
    void subscribe(String channel, ClientSessionChannel.MessageListener listener) {
        subscriptions.put(channel, listener);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.getChannel(channel).subscribe(listener, reply::complete);
        expectSuccess(await(reply, "subscribe reply"), "subscribe to " + channel);
    }

    /**
     * Unsubscribes from a channel subscribed with {@link #subscribe}, and waits for the server's reply.
     *
     * @param channel the channel or pattern
     */
    void unsubscribe(String channel) {
        ClientSessionChannel.MessageListener listener = subscriptions.remove(channel);
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.getChannel(channel).unsubscribe(listener, reply::complete);
        expectSuccess(await(reply, "unsubscribe reply"), "unsubscribe from " + channel);
    }

    /**
     * @param channel the channel
     * @param data the payload
     * @return the publish reply
     */
    Message publish(String channel, Object data) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.getChannel(channel).publish(data, reply::complete);
        return await(reply, "publish reply");
    }

    /**
     * @param target the service, on /service/target
     * @param data the request
     * @return the answer
     */
    Message remoteCall(String target, Object data) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.remoteCall(target, data, reply::complete);
        return await(reply, "remote call answer");
    }

    /** @return the disconnect reply */
    Message disconnect() {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        bayeux.disconnect(reply::complete);
        return await(reply, "disconnect reply");
    }

    /**
     * @param queue a subscription's messages
     * @return the next message, within the wait limit
     */
    static Message next(BlockingQueue<Message> queue) {
        try {
            Message message = queue.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            if (message == null) {
                throw new AssertionError("No message within " + WAIT_MILLIS + " ms");
            }
            return message;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError(interrupted);
        }
    }

    /**
     * A message's data with JSON arrays as lists: CometD's WebSocket transport gives them as {@code Object[]}, its
     * long-polling transport as {@code List}.
     *
     * @param message a received message
     * @return its data, with every array inside it a list
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> dataOf(Message message) {
        return (Map<String, Object>) withLists(message.getData());
    }

    private static Object withLists(Object value) {
        if (value instanceof Object[] array) {
            return withLists(Arrays.asList(array));
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(item -> copy.add(withLists(item)));
            return copy;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            map.forEach((key, item) -> copy.put(key, withLists(item)));
            return copy;
        }
        return value;
    }

    private static void expectSuccess(Message reply, String what) {
        if (!reply.isSuccessful()) {
            throw new AssertionError(what + " failed: " + reply);
        }
    }

    private static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError(interrupted);
        } catch (Exception failure) {
            throw new AssertionError("No " + what + " within " + WAIT_MILLIS + " ms", failure);
        }
    }

    @Override
    public void close() {
        if (!bayeux.isDisconnected()) {
            // Not disconnect(long): after the disconnect it also waits for a /meta/connect reply, and waits out its
            // whole timeout when the client had no connect outstanding (a disconnect right after a connect reply).
            bayeux.disconnect(ClientSession.MessageListener.NOOP);
            bayeux.waitFor(WAIT_MILLIS, BayeuxClient.State.DISCONNECTED);
        }
        try {
            webSocketClient.stop();
            http.stop();
        } catch (Exception failure) {
            throw new IllegalStateException("Cannot stop the HTTP or WebSocket client", failure);
        }
    }
}
