package org.bayeux.load.server;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.core.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.core.server.WebSocketNegotiator;
import org.eclipse.jetty.websocket.core.server.WebSocketUpgradeHandler;

/**
 * {@code bin/bayeux load-server --floor}: the floor a Bayeux server's fan-out is compared with. Plainly <em>not</em> a
 * Bayeux server: Jetty's core server and core WebSocket, no sessions worth the name (a client id is a number handed
 * out and never checked over WebSocket), no acknowledgements, no extensions, no validation beyond what it needs to
 * answer. It answers just enough of the handshake, the connect (held, then answered), subscribe, unsubscribe,
 * disconnect and publish for a Bayeux client to run a load, and the load servers' statistics service. A publish to a
 * room is encoded once: over WebSocket the same bytes are written to each subscriber's socket, each in one frame,
 * with no task per recipient; over long-polling ({@link FloorLongPolling}) the same bytes wait for each recipient's
 * next connect. Whatever a real server spends beyond that is its own cost.
 */
public final class FloorServer implements AutoCloseable {
    /** How long a connect is held before it is answered, when the client does not say. */
    static final long HOLD_MILLIS = TimeUnit.SECONDS.toMillis(30);
    static final ObjectMapper JSON = new ObjectMapper();

    private final Server server;
    private final ServerConnector connector;
    private final Map<String, Set<Member>> rooms = new ConcurrentHashMap<>();
    private final Set<Member> members = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextClientId = new AtomicLong();
    private final LongAdder publishes = new LongAdder();
    private final LongAdder connects = new LongAdder();
    private final FloorLongPolling longPolling;

    /**
     * Starts the server.
     *
     * @param host the address to listen on
     * @param port the port, 0 for any free one
     * @throws Exception if it cannot start
     */
    public FloorServer(String host, int port) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("floor");
        server = new Server(threads);
        connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(TimeUnit.MINUTES.toMillis(2));
        server.addConnector(connector);
        WebSocketUpgradeHandler upgrades = new WebSocketUpgradeHandler();
        upgrades.addMapping("/bayeux", new WebSocketNegotiator() {
            @Override
            public FrameHandler negotiate(ServerUpgradeRequest request, ServerUpgradeResponse response,
                    Callback callback) {
                // No permessage-deflate: the same bytes go to every subscriber.
                response.setExtensions(List.of());
                return new Socket();
            }

            @Override
            public void customize(Configuration configuration) {
                configuration.setMaxTextMessageSize(1024 * 1024);
                configuration.setIdleTimeout(java.time.Duration.ofMinutes(2));
            }
        });
        // What is not a WebSocket upgrade is a long poll.
        longPolling = new FloorLongPolling(this);
        upgrades.setHandler(longPolling);
        server.setHandler(upgrades);
        server.start();
    }

    /** @return the port it listens on */
    public int getPort() {
        return connector.getLocalPort();
    }

    Scheduler scheduler() {
        return server.getScheduler();
    }

    /** @return the statistics the load client asks for at the end of a run */
    Map<String, Object> stats(boolean fullGc) {
        Map<String, Object> stats = ProcessStats.snapshot(fullGc);
        stats.put("server", "floor");
        stats.put("sessions", members.size());
        stats.put("queuedMessages", longPolling.waitingDeliveries());
        stats.put("droppedDeliveries", longPolling.droppedDeliveries());
        stats.put("publishesReceived", publishes.sum());
        stats.put("connectsReceived", connects.sum());
        return stats;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    /** A client, over either transport: its rooms, and how a delivery reaches it. */
    abstract static class Member {
        final Set<String> joined = ConcurrentHashMap.newKeySet();
        volatile String clientId;

        /**
         * @param delivery the delivery as a message array, {@code [{...}]}, shared by every recipient: read it
         *        through a view of its own, never change it
         */
        abstract void deliver(ByteBuffer delivery);
    }

    /** @return the reply to a message: its channel and id, successful */
    static ObjectNode replyTo(ObjectNode message) {
        ObjectNode reply = JSON.createObjectNode().put("channel", message.path("channel").asText(""));
        if (message.has("id")) {
            reply.set("id", message.get("id"));
        }
        return reply.put("successful", true);
    }

    /** Counts a connect and adds the advice to its reply. */
    void connectReceived(ObjectNode reply) {
        connects.increment();
        reply.putObject("advice").put("reconnect", "retry").put("interval", 0).put("timeout", HOLD_MILLIS);
    }

    /** @return how long to hold a connect: the client's {@code advice.timeout}, at most {@link #HOLD_MILLIS} */
    static long holdMillis(ObjectNode connect) {
        return Math.min(HOLD_MILLIS, connect.path("advice").path("timeout").asLong(HOLD_MILLIS));
    }

    /**
     * Answers any message but a connect, for either transport.
     *
     * @param member who sent it (for a handshake, the member to be)
     * @param message the message
     * @param replies where the reply goes
     */
    void answer(Member member, ObjectNode message, ArrayNode replies) {
        ObjectNode reply = replyTo(message);
        String channel = reply.path("channel").asText();
        replies.add(reply);
        switch (channel) {
            case "/meta/handshake" -> {
                member.clientId = Long.toString(nextClientId.incrementAndGet(), 36);
                members.add(member);
                reply.put("version", "1.0").put("clientId", member.clientId);
                reply.putArray("supportedConnectionTypes").add("websocket").add("long-polling");
                reply.putObject("advice").put("reconnect", "retry").put("interval", 0).put("timeout", HOLD_MILLIS);
            }
            case "/meta/subscribe", "/meta/unsubscribe" -> {
                JsonNode subscription = message.path("subscription");
                reply.set("subscription", subscription);
                boolean subscribe = channel.equals("/meta/subscribe");
                for (JsonNode room : subscription.isArray() ? subscription : List.of(subscription)) {
                    String name = room.asText();
                    if (subscribe) {
                        member.joined.add(name);
                        rooms.computeIfAbsent(name, created -> ConcurrentHashMap.newKeySet()).add(member);
                    } else {
                        leave(member, name);
                    }
                }
            }
            case "/meta/disconnect" -> gone(member);
            case LoadServer.STATS_SERVICE ->
                    reply.set("data", JSON.valueToTree(stats(message.path("data").path("gc").asBoolean())));
            default -> {
                if (!channel.startsWith("/meta/") && !channel.startsWith("/service/") && message.has("data")) {
                    publishes.increment();
                    fanOut(channel, message.get("data"));
                }
            }
        }
    }

    /** The member left: out of every room. */
    void gone(Member member) {
        members.remove(member);
        for (String room : List.copyOf(member.joined)) {
            leave(member, room);
        }
    }

    private void leave(Member member, String room) {
        member.joined.remove(room);
        Set<Member> inRoom = rooms.get(room);
        if (inRoom != null) {
            inRoom.remove(member);
        }
    }

    /** Encodes the delivery once and hands the same bytes to every member of the room. */
    private void fanOut(String channel, JsonNode data) {
        Set<Member> inRoom = rooms.get(channel);
        if (inRoom == null || inRoom.isEmpty()) {
            return;
        }
        ArrayNode delivery = JSON.createArrayNode();
        delivery.addObject().put("channel", channel).set("data", data);
        ByteBuffer bytes;
        try {
            bytes = ByteBuffer.wrap(JSON.writeValueAsBytes(delivery)).asReadOnlyBuffer();
        } catch (Exception unencodable) {
            return;
        }
        for (Member member : inRoom) {
            member.deliver(bytes);
        }
    }

    /** One client's WebSocket. */
    private final class Socket extends Member implements FrameHandler {
        private volatile CoreSession session;
        /** The text of a message split over several frames; null when none is. */
        private StringBuilder fragments;

        @Override
        public void onOpen(CoreSession coreSession, Callback callback) {
            session = coreSession;
            callback.succeeded();
            coreSession.demand();
        }

        @Override
        public void onFrame(Frame frame, Callback callback) {
            switch (frame.getOpCode()) {
                case OpCode.TEXT, OpCode.CONTINUATION -> {
                    String text = frame.getPayloadAsUTF8();
                    callback.succeeded();
                    if (!frame.isFin()) {
                        fragments = (fragments == null ? new StringBuilder() : fragments).append(text);
                    } else {
                        if (fragments != null) {
                            text = fragments.append(text).toString();
                            fragments = null;
                        }
                        received(text);
                    }
                    session.demand();
                }
                case OpCode.PING -> {
                    callback.succeeded();
                    session.sendFrame(new Frame(OpCode.PONG), Callback.NOOP, false);
                    session.demand();
                }
                case OpCode.CLOSE -> callback.succeeded();
                default -> {
                    callback.succeeded();
                    session.demand();
                }
            }
        }

        private void received(String text) {
            JsonNode messages;
            try {
                messages = JSON.readTree(text);
            } catch (Exception notJson) {
                session.close(CloseStatus.BAD_PAYLOAD, "not JSON", Callback.NOOP);
                return;
            }
            ArrayNode replies = JSON.createArrayNode();
            for (JsonNode message : messages.isArray() ? messages : List.of(messages)) {
                if (!(message instanceof ObjectNode object)) {
                    continue;
                }
                if ("/meta/connect".equals(object.path("channel").asText())) {
                    ObjectNode reply = replyTo(object);
                    connectReceived(reply);
                    long hold = holdMillis(object);
                    if (hold <= 0) {
                        replies.add(reply);
                    } else {
                        // Held, then answered, as a Bayeux server does when it has nothing to deliver. One timer
                        // per connect: every 30 s per client, not per message.
                        ArrayNode held = JSON.createArrayNode().add(reply);
                        scheduler().schedule(() -> send(held), hold, TimeUnit.MILLISECONDS);
                    }
                } else {
                    answer(this, object, replies);
                }
            }
            if (!replies.isEmpty()) {
                send(replies);
            }
        }

        private void send(ArrayNode messages) {
            try {
                session.sendFrame(new Frame(OpCode.TEXT, ByteBuffer.wrap(JSON.writeValueAsBytes(messages))),
                        Callback.NOOP, false);
            } catch (Exception closed) {
                // A reply to a client that is gone: nobody to tell.
            }
        }

        @Override
        void deliver(ByteBuffer delivery) {
            CoreSession current = session;
            if (current != null) {
                // A view per socket (Jetty advances its position as it writes), over the same bytes.
                current.sendFrame(new Frame(OpCode.TEXT, delivery.slice()), Callback.NOOP, false);
            }
        }

        @Override
        public void onError(Throwable cause, Callback callback) {
            callback.succeeded();
        }

        @Override
        public void onClosed(CloseStatus closeStatus, Callback callback) {
            gone(this);
            callback.succeeded();
        }
    }

    /**
     * @param args {@code [--host H] [--port P]}
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        String host = "0.0.0.0";
        int port = 8080;
        for (int i = 0; i < args.length; i += 2) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            try {
                switch (args[i]) {
                    case "--host" -> host = java.util.Objects.requireNonNull(value);
                    case "--port" -> port = Integer.parseInt(java.util.Objects.requireNonNull(value));
                    default -> throw new IllegalArgumentException();
                }
            } catch (RuntimeException bad) {
                System.err.println("bayeux load-server --floor: bad option '" + args[i] + (value == null ? "" : " "
                        + value) + "' (it takes only --host H and --port P)");
                System.exit(2);
                return;
            }
        }
        FloorServer floor = new FloorServer(host, port);
        System.out.println("LOAD-SERVER-READY http://127.0.0.1:" + floor.getPort() + "/bayeux");
        System.out.flush();
        floor.server.join();
    }
}
