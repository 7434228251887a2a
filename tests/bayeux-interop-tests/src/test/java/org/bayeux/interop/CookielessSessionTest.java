package org.bayeux.interop;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.transport.http.SessionBinding;
import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31, item 6: a client that keeps no cookies keeps its session across connection cuts with session binding at
 * its default ({@code sessionBinding=COOKIE_ONCE_SHOWN}). The unmodified CometD JavaScript client in Node.js opens
 * its sockets with the {@code ws} package, which sends no cookies; under strict binding each cut cost it its session
 * (402, a new handshake, what was in flight lost). Here it runs over WebSocket with the {@code ack} extension through
 * a proxy that cuts every connection ten times, and must receive every message once, in order, without handshaking
 * again. The hijack side (a session that showed its cookie is refused without it) is in the transports'
 * SessionBindingTest.
 */
class CookielessSessionTest {
    private static final Duration RUN_LIMIT = Duration.ofSeconds(90);
    private static final int CUTS = 10;
    private static final int PER_ROUND = 100;

    /** Counts the handshakes and connects the server reads, to know when a cut client is back. */
    private static final class MetaCounter implements ServerExtension {
        final AtomicInteger handshakes = new AtomicInteger();
        final AtomicInteger connects = new AtomicInteger();

        @Override
        public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
            if ("/meta/handshake".equals(message.getChannel())) {
                handshakes.incrementAndGet();
            } else if ("/meta/connect".equals(message.getChannel())) {
                connects.incrementAndGet();
            }
            return true;
        }
    }

    @ParameterizedTest(name = "{0} codec")
    @ValueSource(strings = {"jackson"})
    void cometdJsOverWebSocketKeepsItsSessionThroughTenCutsWithNothingLost(String codec) throws Exception {
        TransportConfig defaults = TransportConfig.defaults();
        assertThat(defaults.sessionBinding()).isEqualTo(SessionBinding.COOKIE_ONCE_SHOWN);
        try (InteropServer server = new InteropServer(codec, builder -> { }, defaults)) {
            server.engine.addExtension(new AcknowledgedMessagesExtension());
            MetaCounter meta = new MetaCounter();
            server.engine.addExtension(meta);
            // A last round after the last cut: the client cannot have everything, and leave, before that cut.
            int total = (CUTS + 1) * PER_ROUND;
            NodeScenario run = NodeScenario.start("cometd-js", server.proxiedUrl(), "websocket", "feed",
                    Map.of("channel", "/cut/a", "count", total, "wait", 60000, "options", "{\"ack\":true}"));
            ServerSession session = server.awaitSubscriber("/cut/a", null);

            int seq = 0;
            for (int cut = 0; cut < CUTS; cut++) {
                for (int i = 0; i < PER_ROUND; i++) {
                    server.publish("/cut/a", Map.of("seq", seq++));
                }
                int connectsBefore = meta.connects.get();
                server.proxy().dropConnections();
                // Back on a new socket: a connect read after the cut, and held again.
                Awaitility.await("connect after cut " + cut).atMost(30, TimeUnit.SECONDS)
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> meta.connects.get() > connectsBefore && server.engine.isConnectHeld(session));
            }
            for (int i = 0; i < PER_ROUND; i++) {
                server.publish("/cut/a", Map.of("seq", seq++));
            }
            Map<String, Object> result = run.resultAfterConnectionsCut(RUN_LIMIT);

            assertThat(result).containsEntry("handshakes", 1L).containsEntry("count", (long) total)
                    .containsEntry("distinct", (long) total).containsEntry("outOfOrder", 0L)
                    .containsEntry("first", 0L).containsEntry("last", (long) total - 1);
            assertThat(meta.handshakes.get()).as("handshakes the server read").isEqualTo(1);
        }
    }
}
