package org.bayeux.server.test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.MalformedJsonException;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.transport.BadBatchException;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.HoldPolicy;
import org.bayeux.server.transport.IncomingBatch;
import org.bayeux.server.transport.OutgoingMessages;

/**
 * A client that talks to the engine through the transport SPI, with JSON text both ways.
 *
 * <p>In request mode (like long-polling) each {@link #send(String)} gets its own carrier and its own response.
 * In socket mode (like WebSocket) one carrier carries everything, and every frame the engine sends, answers and
 * pushes alike, lands in {@link #frames()}.</p>
 */
public final class TestClient {
    /** How long a test waits for an answer that should come. */
    public static final Duration WAIT = Duration.ofSeconds(10);

    private final BayeuxServerImpl server;
    private final JsonCodec codec;
    private final SocketCarrier socket;
    private final AtomicLong ids = new AtomicLong();
    private volatile String clientId;
    /** What this client's requests can do: long-polling, with {@link #maxResponseBytes(int)}. */
    private volatile CarrierCapabilities requestCapabilities =
            CarrierCapabilities.of("long-polling").holdingConnects().piggybacking();
    /** What this client's socket can do: a WebSocket, with {@link #maxResponseBytes(int)}. */
    private volatile CarrierCapabilities socketCapabilities =
            CarrierCapabilities.of("websocket").holdingConnects().pushingWhileHeld().piggybacking();

    TestClient(BayeuxServerImpl server, boolean socketMode) {
        this.server = server;
        this.codec = server.getCodec();
        this.socket = socketMode ? new SocketCarrier() : null;
    }

    /** @return the clientId from the last successful handshake */
    public String clientId() {
        return clientId;
    }

    /**
     * @param clientId the clientId to use from now on
     */
    public void clientId(String clientId) {
        this.clientId = clientId;
    }

    /**
     * @param maxBytes the most JSON bytes of queued messages this client's carriers take at once
     */
    public void maxResponseBytes(int maxBytes) {
        this.requestCapabilities = requestCapabilities.maxResponseBytes(maxBytes);
        this.socketCapabilities = socketCapabilities.maxResponseBytes(maxBytes);
    }

    /** @return a new message id, unique for this client */
    public String nextId() {
        return String.valueOf(ids.incrementAndGet());
    }

    /**
     * Sends a batch. In request mode the future completes with the response to this batch (later for a held
     * connect); in socket mode it completes with the first frame sent after this batch was handed over, and that
     * frame is not also put in {@link #frames()}.
     *
     * @param json the batch
     * @return the response
     */
    public CompletableFuture<TestResponse> send(String json) {
        IncomingBatch batch;
        try {
            byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
            batch = server.parse(utf8, 0, utf8.length);
        } catch (BadBatchException bad) {
            return CompletableFuture.completedFuture(new TestResponse(TestResponse.BAD_REQUEST, List.of(), bad.getMessage()));
        }
        if (socket != null) {
            CompletableFuture<TestResponse> next = socket.nextFrame();
            server.handle(batch, socket);
            return next;
        }
        RequestCarrier carrier = new RequestCarrier();
        server.handle(batch, carrier);
        return carrier.response;
    }

    /**
     * Sends a batch and waits for its response.
     *
     * @param json the batch
     * @return the response
     */
    public TestResponse call(String json) {
        try {
            return send(json).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException timeout) {
            throw new AssertionError("No response within " + WAIT + " to " + json);
        } catch (Exception failure) {
            throw new AssertionError(failure);
        }
    }

    /** @return the successful handshake reply; the clientId is kept */
    public Map<String, Object> handshake() {
        return handshake("");
    }

    /**
     * @param extraFields JSON fields to add to the handshake, starting with a comma, e.g. {@code ,"ext":{"ack":true}}
     * @return the handshake reply; the clientId is kept when successful
     */
    public Map<String, Object> handshake(String extraFields) {
        TestResponse response = call("[{\"id\":\"" + nextId() + "\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\",\"websocket\"]" + extraFields + "}]");
        Map<String, Object> reply = response.single("/meta/handshake");
        if (Boolean.TRUE.equals(reply.get("successful"))) {
            clientId = (String) reply.get("clientId");
        }
        return reply;
    }

    /**
     * @param extraFields JSON fields to add, starting with a comma, or empty
     * @return the connect message text
     */
    public String connectMessage(String extraFields) {
        return "{\"id\":\"" + nextId() + "\",\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                + "\"clientId\":\"" + clientId + "\"" + extraFields + "}";
    }

    /** Sends the first connect (never held) and checks it succeeds. */
    public void firstConnect() {
        TestResponse response = call("[" + connectMessage(",\"advice\":{\"timeout\":0}") + "]");
        if (!Boolean.TRUE.equals(response.single("/meta/connect").get("successful"))) {
            throw new AssertionError("First connect failed: " + response);
        }
    }

    /**
     * @return a connect that may be held; completes when the engine answers it
     */
    public CompletableFuture<TestResponse> connect() {
        return send("[" + connectMessage("") + "]");
    }

    /**
     * @param subscription a channel, or a JSON array text such as {@code ["/a","/b"]}
     * @return the subscribe reply
     */
    public Map<String, Object> subscribe(String subscription) {
        String value = subscription.startsWith("[") ? subscription : "\"" + subscription + "\"";
        return call("[{\"id\":\"" + nextId() + "\",\"channel\":\"/meta/subscribe\",\"subscription\":" + value
                + ",\"clientId\":\"" + clientId + "\"}]").single("/meta/subscribe");
    }

    /**
     * @param channel the channel
     * @return the unsubscribe reply
     */
    public Map<String, Object> unsubscribe(String channel) {
        return call("[{\"id\":\"" + nextId() + "\",\"channel\":\"/meta/unsubscribe\",\"subscription\":\"" + channel
                + "\",\"clientId\":\"" + clientId + "\"}]").single("/meta/unsubscribe");
    }

    /**
     * @param channel the channel
     * @param dataJson the data as JSON text
     * @return the whole response to the publish
     */
    public TestResponse publish(String channel, String dataJson) {
        return call("[{\"id\":\"" + nextId() + "\",\"channel\":\"" + channel + "\",\"data\":" + dataJson
                + ",\"clientId\":\"" + clientId + "\"}]");
    }

    /** @return the disconnect response */
    public TestResponse disconnect() {
        return call("[{\"id\":\"" + nextId() + "\",\"channel\":\"/meta/disconnect\",\"clientId\":\"" + clientId + "\"}]");
    }

    /** @return the frames the engine sent on this client's socket, in order (socket mode only) */
    public LinkedBlockingQueue<TestResponse> frames() {
        return socket.frames;
    }

    /**
     * Waits for the next frame on the socket.
     *
     * @return the frame
     */
    public TestResponse nextFrame() {
        try {
            TestResponse frame = socket.frames.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (frame == null) {
                throw new AssertionError("No frame within " + WAIT);
            }
            return frame;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError(interrupted);
        }
    }

    /** Closes the socket as if the network dropped it: the engine is told for every attached session. */
    public void dropSocket() {
        socket.closed = true;
        for (ServerSession session : socket.attached) {
            server.carrierFailed(session, socket);
        }
    }

    /** Opens a fresh socket for this client, keeping its clientId (socket mode only). */
    public TestClient reopenSocket() {
        TestClient fresh = new TestClient(server, true);
        fresh.clientId = clientId;
        fresh.ids.set(ids.get());
        return fresh;
    }

    private TestResponse decode(List<ServerMessage> messages) {
        String json = new String(server.toJson(messages), StandardCharsets.UTF_8);
        try {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> parsed = (List<Map<String, Object>>) codec.parse(json);
            return new TestResponse(TestResponse.OK, parsed, json);
        } catch (MalformedJsonException malformed) {
            throw new AssertionError("Engine produced invalid JSON: " + json, malformed);
        }
    }

    private final class RequestCarrier implements Carrier, HoldPolicy {
        final CompletableFuture<TestResponse> response = new CompletableFuture<>();

        @Override
        public CarrierCapabilities capabilities() {
            return requestCapabilities;
        }

        @Override
        public HoldPolicy holdPolicy() {
            return this;
        }

        @Override
        public void send(OutgoingMessages outgoing) {
            List<ServerMessage> messages = messagesOf(outgoing);
            if (!response.complete(decode(messages))) {
                throw new AssertionError("Second response on one request: " + messages);
            }
        }

        @Override
        public void superseded() {
            response.complete(new TestResponse(TestResponse.SUPERSEDED, List.of(), "superseded"));
        }
    }

    private final class SocketCarrier implements Carrier {
        final LinkedBlockingQueue<TestResponse> frames = new LinkedBlockingQueue<>();
        final List<CompletableFuture<TestResponse>> waiting = new ArrayList<>();
        final List<ServerSession> attached = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        synchronized CompletableFuture<TestResponse> nextFrame() {
            CompletableFuture<TestResponse> next = new CompletableFuture<>();
            waiting.add(next);
            return next;
        }

        @Override
        public CarrierCapabilities capabilities() {
            return socketCapabilities;
        }

        @Override
        public void send(OutgoingMessages outgoing) {
            List<ServerMessage> messages = messagesOf(outgoing);
            if (closed) {
                return;
            }
            TestResponse frame = decode(messages);
            List<CompletableFuture<TestResponse>> toComplete;
            synchronized (this) {
                toComplete = new ArrayList<>(waiting);
                waiting.clear();
            }
            if (toComplete.isEmpty()) {
                frames.add(frame);
            }
            toComplete.forEach(future -> future.complete(frame));
        }

        @Override
        public void attach(ServerSession session) {
            if (!attached.contains(session)) {
                attached.add(session);
            }
        }
    }

    /**
     * @param outgoing what the engine handed a carrier
     * @return its messages, in order
     */
    public static List<ServerMessage> messagesOf(OutgoingMessages outgoing) {
        List<ServerMessage> messages = new ArrayList<>(outgoing.size());
        for (int i = 0; i < outgoing.size(); i++) {
            messages.add(outgoing.get(i));
        }
        return messages;
    }
}
