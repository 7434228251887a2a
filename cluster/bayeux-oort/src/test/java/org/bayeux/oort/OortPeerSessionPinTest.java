package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: a peer session is carried only by the connection that joined. Whoever has read a plain link's
 * {@code BAYEUX_BROWSER} cookie and the peer session's clientId (here taken from the node itself, the most an
 * eavesdropper could learn) cannot act as the peer over long-polling nor on a socket of its own: the engine finds no
 * session for either (counted as a foreign clientId), so the forward is refused as one from an unknown session, and
 * the link carries on. Without the pin the same forward over long-polling was accepted.
 */
class OortPeerSessionPinTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private OortTestNode node() throws Exception {
        OortTestNode node = new OortTestNode();
        closeables.add(node);
        return node;
    }

    @Test
    void aPeersCookieAndClientIdActAsNothingOverLongPollingOrAnotherSocket() throws Exception {
        OortTestNode a = node();
        OortTestNode b = node();
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        ServerSession peer = await().atMost(WAIT).until(() -> b.engine.getSessions().stream()
                .filter(s -> OortGate.peerOf(s) != null && a.oort.id().equals(OortGate.peerOf(s).id()))
                .findFirst().orElse(null), s -> s != null);
        String cookie = b.engine.browserOf(peer);
        assertThat(cookie).as("the link's browser cookie").isNotNull();
        String forward = "[{\"channel\":\"/service/oort/forward\",\"clientId\":\"" + peer.getId()
                + "\",\"data\":{\"origin\":\"" + a.oort.id() + "\",\"forwards\":[]}}]";
        long refusedBefore = b.engine.getForeignClientIdCount();

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> overHttp = http.send(HttpRequest.newBuilder(URI.create(b.url))
                .header("Content-Type", "application/json;charset=UTF-8")
                .header("Cookie", "BAYEUX_BROWSER=" + cookie)
                .POST(HttpRequest.BodyPublishers.ofString(forward)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(overHttp.statusCode()).isEqualTo(200);
        // Refused as an unknown session is on Oort's channels: the gate deletes a message no peer sent.
        assertThat(overHttp.body()).contains("\"successful\":false").doesNotContain("\"successful\":true");

        CompletableFuture<String> reply = new CompletableFuture<>();
        WebSocket socket = http.newWebSocketBuilder().header("Cookie", "BAYEUX_BROWSER=" + cookie)
                .buildAsync(URI.create(b.url.replace("http://", "ws://")), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            reply.complete(text.toString());
                        }
                        webSocket.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        socket.sendText(forward, true).get(10, TimeUnit.SECONDS);
        assertThat(reply.get(10, TimeUnit.SECONDS)).contains("\"successful\":false")
                .doesNotContain("\"successful\":true");
        socket.abort();

        assertThat(b.engine.getForeignClientIdCount() - refusedBefore).isEqualTo(2);
        assertThat(peer.isHandshook()).as("the real link is untouched").isTrue();
        assertThat(b.engine.getSession(peer.getId())).isSameAs(peer);
        assertThat(a.left).isEmpty();
        assertThat(b.left).isEmpty();
    }
}
