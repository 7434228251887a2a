package org.bayeux.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code --client raw}: the Bayeux protocol and nothing else (handshake, the connect loop, subscribe, publish,
 * disconnect), written as JSON text directly, with deliveries read by {@link RawScanner} down to the two numbers the
 * load needs. No extensions, no re-handshake, no queues, no timers, no thread of its own: what a server does wrong
 * shows as an error or a lost message instead of being repaired. Replies (rare) are parsed fully with Jackson. The
 * transports ({@link RawWebSocketClient}, {@link RawLongPollingClient}) only move the text.
 */
abstract class RawClient implements LoadClient, RawScanner.Sink {
    private static final ObjectMapper JSON = new ObjectMapper();

    final int index;
    final Listener listener;
    private final String connectionType;
    /** The server's clientId, escaped for a JSON string once, as every message written carries it. */
    volatile String clientId;
    private volatile String[] rooms;
    private final AtomicInteger joinedRooms = new AtomicInteger();
    private volatile Runnable onJoined;
    private volatile Consumer<String> onFailed;
    private final AtomicBoolean settled = new AtomicBoolean();
    final AtomicBoolean disconnecting = new AtomicBoolean();
    private final AtomicReference<Runnable> onDisconnected = new AtomicReference<>();
    private final AtomicReference<Consumer<Map<String, Object>>> onStats = new AtomicReference<>();

    RawClient(int index, Listener listener, String connectionType) {
        this.index = index;
        this.listener = listener;
        this.connectionType = connectionType;
    }

    /** Opens what the transport needs, then sends {@link #handshakeMessage()} with {@link #send}. */
    abstract void open();

    /** Sends a message array that is not a {@code /meta/connect}. */
    abstract void send(String json);

    /** Sends a {@code /meta/connect}, which the server may hold. */
    abstract void sendConnect(String json);

    /** Releases the transport's connection(s), after the disconnect or a failure. */
    abstract void release();

    @Override
    public final void start(String[] rooms, Runnable joined, Consumer<String> failed) {
        this.rooms = rooms;
        this.onJoined = joined;
        this.onFailed = failed;
        open();
    }

    String handshakeMessage() {
        return "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"minimumVersion\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"" + connectionType + "\"],\"id\":\"h\"}]";
    }

    private String connectMessage() {
        return "[{\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\""
                + connectionType + "\",\"id\":\"c\"}]";
    }

    @Override
    public final void publish(Publish[] batch, Payload payload) {
        StringBuilder json = new StringBuilder(batch.length * 160).append('[');
        for (Publish publish : batch) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append("{\"channel\":\"").append(publish.channel()).append("\",\"clientId\":\"").append(clientId)
                    .append("\",\"id\":\"p").append(publish.seq()).append("\",\"data\":")
                    .append(payload.json(publish.seq(), publish.scheduledNanos())).append('}');
        }
        send(json.append(']').toString());
    }

    @Override
    public final void askStats(boolean fullGc, Consumer<Map<String, Object>> answer) {
        onStats.set(answer);
        send("[{\"channel\":\"" + LoadRun.STATS_SERVICE + "\",\"clientId\":\"" + clientId + "\",\"data\":{\"gc\":"
                + fullGc + "},\"id\":\"q\"}]");
    }

    @Override
    public final void disconnect(Runnable done) {
        onDisconnected.set(done);
        if (!disconnecting.compareAndSet(false, true) || clientId == null) {
            disconnected();
            return;
        }
        send("[{\"channel\":\"/meta/disconnect\",\"clientId\":\"" + clientId + "\",\"id\":\"d\"}]");
    }

    /** Runs the disconnect's callback once, and releases the connections. */
    final void disconnected() {
        Runnable done = onDisconnected.getAndSet(null);
        if (done != null) {
            release();
            done.run();
        }
    }

    /** Reads a frame or a response body. */
    final void received(ByteBuffer json) {
        try {
            RawScanner.scan(json, this);
        } catch (IllegalArgumentException malformed) {
            failed("the server sent what is not Bayeux JSON: " + malformed.getMessage());
        }
    }

    @Override
    public final void delivery(long seq, long scheduledNanos) {
        listener.delivered(index, seq, scheduledNanos);
    }

    @Override
    public final void other(ByteBuffer json, int start, int end) {
        Map<String, Object> message;
        try {
            byte[] bytes = new byte[end - start];
            json.get(start, bytes);
            @SuppressWarnings("unchecked")
            Map<String, Object> parsed = JSON.readValue(bytes, Map.class);
            message = parsed;
        } catch (IOException unreadable) {
            failed("unreadable message: " + unreadable.getMessage());
            return;
        }
        reply(message);
    }

    private void reply(Map<String, Object> message) {
        String channel = String.valueOf(message.get("channel"));
        boolean successful = Boolean.TRUE.equals(message.get("successful"));
        switch (channel) {
            case "/meta/handshake" -> {
                if (!successful || !(message.get("clientId") instanceof String id)) {
                    failed("handshake failed: " + message.get("error"));
                    return;
                }
                clientId = new String(JsonStringEncoder.getInstance().quoteAsString(id));
                sendConnect(connectMessage());
                StringBuilder subscribe = new StringBuilder("[");
                for (String room : rooms) {
                    if (subscribe.length() > 1) {
                        subscribe.append(',');
                    }
                    subscribe.append("{\"channel\":\"/meta/subscribe\",\"clientId\":\"").append(clientId)
                            .append("\",\"subscription\":\"").append(room).append("\",\"id\":\"s\"}");
                }
                send(subscribe.append(']').toString());
            }
            case "/meta/connect" -> {
                if (disconnecting.get()) {
                    return;
                }
                if (successful) {
                    sendConnect(connectMessage());
                } else {
                    failed("connect failed: " + message.get("error") + ", advice " + message.get("advice"));
                }
            }
            case "/meta/subscribe" -> {
                if (!successful) {
                    failed("could not join " + message.get("subscription") + ": " + message.get("error"));
                } else if (joinedRooms.incrementAndGet() == rooms.length && settled.compareAndSet(false, true)) {
                    onJoined.run();
                }
            }
            case "/meta/disconnect" -> disconnected();
            case LoadRun.STATS_SERVICE -> {
                if (message.get("data") instanceof Map<?, ?> data) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> stats = (Map<String, Object>) data;
                    answerStats(stats);
                } else if (message.containsKey("successful") && !successful) {
                    answerStats(Map.of());
                }
            }
            default -> otherReply(message, successful);
        }
    }

    private void otherReply(Map<String, Object> message, boolean successful) {
        Object id = message.get("id");
        if (message.containsKey("data")) {
            listener.error(index, "received a message that is not the load's on " + message.get("channel"));
        } else if (!successful && id instanceof String text && text.startsWith("p")) {
            try {
                listener.refused(index, Long.parseLong(text.substring(1)), String.valueOf(message.get("error")));
            } catch (NumberFormatException notOurs) {
                listener.error(index, "unexpected reply " + id);
            }
        } else if (!successful && message.containsKey("successful")) {
            listener.error(index, "unexpected failed reply on " + message.get("channel") + ": "
                    + message.get("error"));
        }
    }

    private void answerStats(Map<String, Object> stats) {
        Consumer<Map<String, Object>> answer = onStats.getAndSet(null);
        if (answer != null) {
            answer.accept(stats);
        }
    }

    /** Reports a failure: to the start's callback while connecting, as an error afterwards. */
    final void failed(String why) {
        if (disconnecting.get()) {
            disconnected();
            return;
        }
        if (settled.compareAndSet(false, true)) {
            onFailed.accept(why);
        } else {
            listener.error(index, why);
        }
    }

    /** @return the handshake's Set-Cookie values, as a Cookie header, or null */
    static String cookieHeader(List<String> setCookies) {
        StringBuilder cookie = new StringBuilder();
        for (String setCookie : setCookies) {
            int end = setCookie.indexOf(';');
            String pair = (end < 0 ? setCookie : setCookie.substring(0, end)).trim();
            if (!pair.isEmpty()) {
                cookie.append(cookie.length() == 0 ? "" : "; ").append(pair);
            }
        }
        return cookie.length() == 0 ? null : cookie.toString();
    }
}
