package org.bayeux.load.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The floor server's long-polling: a POST of messages is answered in its response; a connect is held until a
 * delivery arrives for its client or the hold ends. A long poll cannot do without a place where deliveries wait for
 * the next connect, so each client has one: a list of views of the deliveries' shared bytes (encoded once for all
 * recipients, copied only into each response), bounded in count, with what is dropped counted
 * ({@code droppedDeliveries}). Still no session state beyond that, no acknowledgements, no validation.
 */
final class FloorLongPolling extends Handler.Abstract {
    /** The most deliveries one client may have waiting for its next connect. */
    private static final int MAX_WAITING = 100_000;
    private static final String JSON_TYPE = "application/json;charset=UTF-8";
    private final FloorServer floor;
    private final Map<String, Poller> pollers = new ConcurrentHashMap<>();
    private final LongAdder dropped = new LongAdder();

    FloorLongPolling(FloorServer floor) {
        this.floor = floor;
    }

    long droppedDeliveries() {
        return dropped.sum();
    }

    long waitingDeliveries() {
        long waiting = 0;
        for (Poller poller : pollers.values()) {
            waiting += poller.waitingCount();
        }
        return waiting;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!"POST".equals(request.getMethod())) {
            return false;
        }
        Content.Source.asString(request, StandardCharsets.UTF_8, new Promise<>() {
            @Override
            public void succeeded(String text) {
                received(text, response, callback);
            }

            @Override
            public void failed(Throwable failure) {
                Response.writeError(request, response, callback, failure);
            }
        });
        return true;
    }

    private void received(String text, Response response, Callback callback) {
        JsonNode messages;
        try {
            messages = FloorServer.JSON.readTree(text);
        } catch (Exception notJson) {
            response.setStatus(400);
            callback.succeeded();
            return;
        }
        ArrayNode replies = FloorServer.JSON.createArrayNode();
        Poller connecting = null;
        ObjectNode connectReply = null;
        long hold = 0;
        for (JsonNode node : messages.isArray() ? messages : List.of(messages)) {
            if (!(node instanceof ObjectNode message)) {
                continue;
            }
            String channel = message.path("channel").asText("");
            if (channel.equals("/meta/handshake")) {
                Poller poller = new Poller();
                floor.answer(poller, message, replies);
                pollers.put(poller.clientId, poller);
                continue;
            }
            Poller poller = pollers.get(message.path("clientId").asText(""));
            if (poller == null) {
                ObjectNode refusal = FloorServer.replyTo(message).put("successful", false)
                        .put("error", "402::unknown_client");
                refusal.putObject("advice").put("reconnect", "handshake").put("interval", 0);
                replies.add(refusal);
            } else if (channel.equals("/meta/connect")) {
                connecting = poller;
                connectReply = FloorServer.replyTo(message);
                floor.connectReceived(connectReply);
                hold = FloorServer.holdMillis(message);
            } else {
                floor.answer(poller, message, replies);
                if (channel.equals("/meta/disconnect")) {
                    pollers.remove(poller.clientId);
                    poller.release();
                }
            }
        }
        if (connecting == null) {
            write(response, callback, replies, List.of(), null);
        } else {
            connecting.hold(new Held(response, callback, replies, connectReply), hold);
        }
    }

    /** Writes replies, then deliveries (views of shared {@code [{...}]} arrays), then the connect reply, if any. */
    private static void write(Response response, Callback callback, ArrayNode replies, List<ByteBuffer> deliveries,
            ObjectNode connectReply) {
        List<byte[]> parts = new ArrayList<>();
        try {
            for (JsonNode reply : replies) {
                parts.add(FloorServer.JSON.writeValueAsBytes(reply));
            }
            if (connectReply != null) {
                parts.add(FloorServer.JSON.writeValueAsBytes(connectReply));
            }
        } catch (Exception unencodable) {
            callback.failed(unencodable);
            return;
        }
        int size = 2 + parts.size() + deliveries.size();
        for (byte[] part : parts) {
            size += part.length;
        }
        for (ByteBuffer delivery : deliveries) {
            size += delivery.remaining() - 2;
        }
        ByteBuffer body = ByteBuffer.allocate(size);
        body.put((byte) '[');
        boolean first = true;
        int repliesCount = replies.size();
        for (int i = 0; i < repliesCount; i++) {
            first = comma(body, first);
            body.put(parts.get(i));
        }
        for (ByteBuffer delivery : deliveries) {
            first = comma(body, first);
            // The message inside the shared [ ... ]: the same bytes every recipient gets.
            body.put(delivery.slice(delivery.position() + 1, delivery.remaining() - 2));
        }
        if (connectReply != null) {
            comma(body, first);
            body.put(parts.get(parts.size() - 1));
        }
        body.put((byte) ']').flip();
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, JSON_TYPE);
        response.write(true, body, callback);
    }

    private static boolean comma(ByteBuffer body, boolean first) {
        if (!first) {
            body.put((byte) ',');
        }
        return false;
    }

    /** A held connect: its response, and the replies of the messages sent with it. */
    private static final class Held {
        final Response response;
        final Callback callback;
        final ArrayNode replies;
        final ObjectNode connectReply;
        volatile Scheduler.Task timer;

        Held(Response response, Callback callback, ArrayNode replies, ObjectNode connectReply) {
            this.response = response;
            this.callback = callback;
            this.replies = replies;
            this.connectReply = connectReply;
        }
    }

    /** One long-polling client: the deliveries waiting for its next connect, and its held connect. */
    private final class Poller extends FloorServer.Member {
        // Guarded by this.
        private final List<ByteBuffer> waiting = new ArrayList<>();
        private Held held;

        synchronized int waitingCount() {
            return waiting.size();
        }

        /** Holds a connect, or answers it at once when deliveries wait or the client asked for no hold. */
        void hold(Held connect, long holdMillis) {
            Held previous;
            boolean now;
            synchronized (this) {
                previous = held;
                now = holdMillis <= 0 || !waiting.isEmpty();
                held = now ? null : connect;
            }
            if (previous != null) {
                // A client has one connect held at a time: a new one answers the old.
                complete(previous);
            }
            if (now) {
                complete(connect);
                return;
            }
            connect.timer = floor.scheduler().schedule(() -> {
                synchronized (this) {
                    if (held != connect) {
                        return;
                    }
                    held = null;
                }
                complete(connect);
            }, holdMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        void deliver(ByteBuffer delivery) {
            Held connect;
            synchronized (this) {
                if (waiting.size() >= MAX_WAITING) {
                    dropped.increment();
                    return;
                }
                waiting.add(delivery);
                connect = held;
                held = null;
            }
            if (connect != null) {
                complete(connect);
            }
        }

        /** Answers the held connect, if any (the client disconnected). */
        void release() {
            Held connect;
            synchronized (this) {
                connect = held;
                held = null;
            }
            if (connect != null) {
                complete(connect);
            }
        }

        private void complete(Held connect) {
            Scheduler.Task timer = connect.timer;
            if (timer != null) {
                timer.cancel();
            }
            List<ByteBuffer> deliveries;
            synchronized (this) {
                deliveries = List.copyOf(waiting);
                waiting.clear();
            }
            write(connect.response, connect.callback, connect.replies, deliveries, connect.connectReply);
        }
    }
}
