package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: a peer cannot be impersonated after its join. Node B's URL is a recording relay, so that node A's
 * link into B is plain text that anyone on the path can read; B serves long-polling only, so that the link's cookie,
 * clientId and forwards are all in that text. An attacker who read it, without the secret, posts forwards to
 * {@code /service/oort/forward} as A's session from another connection.
 */
class OortPeerForgeryTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Pattern COOKIE = Pattern.compile("BAYEUX_BROWSER=([A-Za-z0-9_\\-.]+)");
    private static final Pattern CLIENT_ID = Pattern.compile("\"clientId\":\"([^\"]+)\"");
    private static final Pattern ORIGIN = Pattern.compile("\"origin\":\"([^\"]+)\"");
    private static final Pattern SEQ = Pattern.compile("\"seq\":([0-9]+)");
    private static final Pattern TO = Pattern.compile("\"to\":\"([^\"]+)\"");
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private static String last(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        String found = null;
        while (matcher.find()) {
            found = matcher.group(1);
        }
        assertThat(found).as("the recording holds " + pattern).isNotNull();
        return found;
    }

    private static void publish(LocalSession session, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        session.getChannel(channel).publish(data, (c, message) -> reply.complete(message));
        assertThat(reply.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
    }

    @Test
    void aForwardForgedWithTheLinksCookieClientIdAndPeerIdIsNeverDeliveredAndTheGenuinePeerGoesOn()
            throws Exception {
        OortTestNode b = OortTestNode.recorded(TransportConfig.builder().set(TransportConfig.WEBSOCKET, false)
                .build());
        closeables.add(b);
        OortTestNode a = new OortTestNode();
        closeables.add(a);
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        List<Object> onB = b.subscribe("/chat/room");
        List<Object> secretOnB = b.subscribe("/private/room");
        LocalSession speaker = a.connected("speaker");
        publish(speaker, "/chat/room", "genuine-1");
        await().atMost(WAIT).until(() -> onB.contains("genuine-1"));

        // What a reader of the plain link has: the browser cookie, the link session's clientId and A's id.
        String sent = b.recording.clientBytes();
        String cookie = last(COOKIE, sent + b.recording.serverBytes());
        String clientId = last(CLIENT_ID, sent);
        String origin = last(ORIGIN, sent);
        long seen = Long.parseLong(last(SEQ, sent));
        String to = last(TO, sent);
        assertThat(origin).isEqualTo(a.oort.id());

        HttpClient attacker = HttpClient.newHttpClient();
        long nearTop = (1L << 53) - 10;
        List<String> forgeries = List.of(
                // A sequence near 2^53 with prev 0: would make every later genuine forward a "duplicate".
                forward(clientId, origin, to, nearTop, 0, "/chat/room", "/chat/room", "forged-top"),
                // The next number in A's chain, as A would send it.
                forward(clientId, origin, to, seen + 1, seen, "/chat/room", "/chat/room", "forged-next"),
                // Checked as an observed channel, delivered on another.
                forward(clientId, origin, to, seen + 2, seen + 1, "/chat/room", "/private/room", "forged-elsewhere"));
        for (String forgery : forgeries) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port + "/bayeux"))
                    .header("Content-Type", "application/json;charset=UTF-8")
                    .header("Cookie", "BAYEUX_BROWSER=" + cookie)
                    .timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString(forgery)).build();
            HttpResponse<String> response = attacker.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.body()).as("a forgery is not taken").doesNotContain("\"successful\":true");
        }

        publish(speaker, "/chat/room", "genuine-2");
        publish(speaker, "/chat/room", "genuine-3");
        await().atMost(WAIT).until(() -> onB.contains("genuine-3"));
        assertThat(onB).containsExactly("genuine-1", "genuine-2", "genuine-3");
        assertThat(secretOnB).isEmpty();
        assertThat(b.memberIds()).containsExactly(a.oort.id());
    }

    private static String forward(String clientId, String origin, String to, long seq, long prev, String channel,
            String messageChannel, String data) {
        String message = "{\\\"channel\\\":\\\"" + messageChannel + "\\\",\\\"data\\\":\\\"" + data + "\\\"}";
        return "[{\"channel\":\"/service/oort/forward\",\"clientId\":\"" + clientId + "\",\"data\":{\"origin\":\""
                + origin + "\",\"forwards\":[{\"to\":\"" + to + "\",\"seq\":" + seq + ",\"prev\":" + prev + ",\"channel\":\"" + channel
                + "\",\"message\":\"" + message + "\"}]}}]";
    }
}
