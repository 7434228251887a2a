package org.bayeux.transport.jetty;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.json.JsonCodec;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * One WebSocket connection of a test, on Jetty's WebSocket client: it sends text, and collects the text frames it
 * receives and the close code. It reads frames as they come, unless {@link #stopReading()} is called.
 */
public final class WsClient implements Session.Listener {
    static final long WAIT_SECONDS = 10;

    final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
    final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
    private final JsonCodec codec;
    private volatile Session session;
    private volatile boolean reading = true;
    volatile String clientId;

    private WsClient(JsonCodec codec) {
        this.codec = codec;
    }

    /** Opens a socket to the endpoint, with an optional Origin header. */
    static WsClient open(WebSocketClient client, URI uri, JsonCodec codec, String origin) throws Exception {
        ClientUpgradeRequest request = new ClientUpgradeRequest(uri);
        if (origin != null) {
            request.setHeader("Origin", origin);
        }
        return open(client, request, codec);
    }

    /** Opens a socket with an upgrade request of the caller's making. */
    static WsClient open(WebSocketClient client, ClientUpgradeRequest request, JsonCodec codec) throws Exception {
        WsClient socket = new WsClient(codec);
        client.connect(socket, request).get(WAIT_SECONDS, TimeUnit.SECONDS);
        return socket;
    }

    static WsClient open(WebSocketClient client, URI uri, JsonCodec codec) throws Exception {
        return open(client, uri, codec, (String) null);
    }

    @Override
    public void onWebSocketOpen(Session opened) {
        this.session = opened;
        opened.demand();
    }

    @Override
    public void onWebSocketText(String message) {
        frames.add(message);
        if (reading) {
            session.demand();
        }
    }

    /** Reads no more frames once the next one has arrived: the server's writes back up, as with a stalled client. */
    void stopReading() {
        reading = false;
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason, Callback callback) {
        closeCode.complete(statusCode);
        callback.succeed();
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        closeCode.completeExceptionally(cause);
    }

    void send(String json) {
        session.sendText(json, Callback.NOOP);
    }

    void sendBinary(byte[] bytes) {
        session.sendBinary(ByteBuffer.wrap(bytes), Callback.NOOP);
    }

    /** Closes the TCP connection without a close frame, as a dropped network would. */
    void drop() {
        session.disconnect();
    }

    /** Closes normally, with a close frame. */
    void close() {
        session.close();
    }

    boolean isOpen() {
        return session.isOpen();
    }

    Session session() {
        return session;
    }

    int awaitClose() throws Exception {
        return closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** @return the next frame's raw text */
    String nextText() throws InterruptedException {
        String frame = frames.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        if (frame == null) {
            throw new AssertionError("No frame within " + WAIT_SECONDS + "s");
        }
        return frame;
    }

    /** @return the next frame, parsed */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> next() throws Exception {
        String text = nextText();
        return (List<Map<String, Object>>) codec.parse(text);
    }

    /** Sends a batch and returns the next frame, for requests answered at once on a quiet socket. */
    List<Map<String, Object>> call(String json) throws Exception {
        send(json);
        return next();
    }

    /** Handshakes over this socket and keeps the clientId. */
    Map<String, Object> handshake() throws Exception {
        List<Map<String, Object>> reply = call("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]");
        Map<String, Object> handshake = reply.get(0);
        clientId = (String) handshake.get("clientId");
        return handshake;
    }

    String connectMessage(String extra) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + clientId + "\""
                + extra + "}]";
    }

    /** Sends a connect with {@code advice.timeout:0} and returns its answer. */
    List<Map<String, Object>> connectNow() throws Exception {
        return call(connectMessage(",\"advice\":{\"timeout\":0}"));
    }

    Map<String, Object> subscribe(String channel) throws Exception {
        return call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\"" + clientId
                + "\"}]").get(0);
    }

    void publish(String channel, String dataJson) {
        send("[{\"channel\":\"" + channel + "\",\"data\":" + dataJson + ",\"clientId\":\"" + clientId + "\"}]");
    }
}
