package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.awaitility.Awaitility;
import org.bayeux.api.server.ServerSession;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A long poll whose client closes its connection while the connect is held (issue 16, item 7): the server notices at
 * once and the session starts expiring, instead of living until the hold times out plus {@code maxInterval}.
 */
class HeldLongPollTest {
    private static final Duration HOLD = Duration.ofSeconds(30);
    private static final Duration MAX_INTERVAL = Duration.ofMillis(500);
    private HttpTestServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aClosedHeldLongPollStartsTheSessionsExpiryAtOnce() throws Exception {
        server = new HttpTestServer("jackson", engine -> engine.timeout(HOLD).maxInterval(MAX_INTERVAL)
                .sweepPeriod(Duration.ofMillis(100)), transport -> { });
        ContentResponse handshake = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        Map<String, Object> reply = server.messages(handshake).get(0);
        String clientId = (String) reply.get("clientId");
        String cookie = handshake.getHeaders().get(HttpHeader.SET_COOKIE).split(";")[0];
        server.send(server.post("/bayeux", "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                + "\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]"));
        ServerSession session = server.engine.getSession(clientId);

        String body = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId
                + "\"}]";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        long closedAt;
        try (Socket socket = new Socket("127.0.0.1", server.connector.getLocalPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /bayeux/connect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Cookie: " + cookie + "\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                    .until(() -> server.engine.isConnectHeld(session));
            InputStream in = socket.getInputStream();
            assertThat(in.available()).as("nothing answered yet").isZero();
            closedAt = System.nanoTime();
        }
        // Noticed within about a second (the watcher's grace): the hold is dropped, and the session expires within maxInterval (plus a sweep), long
        // before the hold's own timeout.
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> !server.engine.isConnectHeld(session));
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> !session.isHandshook());
        long millis = (System.nanoTime() - closedAt) / 1_000_000;
        assertThat(millis).as("expired %d ms after the close", millis).isLessThan(HOLD.toMillis() / 3);
        assertThat(server.engine.getSession(clientId)).isNull();
    }

    /** The watch ends with the answer: the client's next request on the same connection is served as usual. */
    @Test
    void anAnsweredLongPollKeepsItsConnection() throws Exception {
        server = new HttpTestServer("jackson", engine -> engine.timeout(HOLD), transport -> { });
        ContentResponse handshake = server.send(server.post("/bayeux", "[{\"channel\":\"/meta/handshake\","
                + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"));
        String clientId = (String) server.messages(handshake).get(0).get("clientId");
        String cookie = handshake.getHeaders().get(HttpHeader.SET_COOKIE).split(";")[0];
        server.send(server.post("/bayeux", "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\","
                + "\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]"));
        server.send(server.post("/bayeux", "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"/a\","
                + "\"clientId\":\"" + clientId + "\"}]"));
        ServerSession session = server.engine.getSession(clientId);
        String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\""
                + clientId + "\"}]";
        try (Socket socket = new Socket("127.0.0.1", server.connector.getLocalPort())) {
            socket.setSoTimeout(10_000);
            for (int poll = 1; poll <= 3; poll++) {
                write(socket, cookie, connect);
                Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                        .until(() -> server.engine.isConnectHeld(session));
                server.send(server.post("/bayeux", "[{\"channel\":\"/a\",\"data\":" + poll + ",\"clientId\":\""
                        + clientId + "\"}]"));
                String response = readResponse(socket.getInputStream());
                assertThat(response).startsWith("HTTP/1.1 200").contains("\"data\":" + poll);
            }
        }
    }

    private static void write(Socket socket, String cookie, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /bayeux/connect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Cookie: " + cookie + "\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** Reads one response with a Content-Length, byte by byte (bounded by the header and body lengths). */
    private static String readResponse(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("connection closed in the headers: %s", head).isNotNegative();
            head.append((char) b);
            assertThat(head.length()).isLessThan(16_384);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return head + new String(body, StandardCharsets.UTF_8);
    }
}
