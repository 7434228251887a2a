package org.bayeux.client;

import java.time.Duration;
import java.util.Map;

import org.bayeux.client.Clients.Received;
import org.bayeux.client.TestServer.RecordedRequest;
import org.bayeux.client.ext.TimesyncExtension;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/** Batches go out as one request; the timesync extension learns the server's clock. */
class BatchAndTimesyncTest {
    @Test
    void aBatchGoesOutAsOneRequestWhenItEnds() throws Exception {
        // Deliveries only in connect replies: piggy-backed on the batch's response, some could overtake the others.
        try (TestServer server = new TestServer(engine -> TestServer.holdingLong(engine.metaConnectDeliveryOnly(true)),
                transports -> { }, engine -> { });
             BayeuxClient client = connected(config(server.url(), "long-polling").build())) {
            Received received = new Received();
            server.awaitConnectHeld(client.getId());
            long postsBefore = posts(server);
            long requestsBefore = server.requests().size();

            client.batch(() -> {
                client.getChannel("/b/a").subscribe(received, null);
                for (int n = 0; n < 3; n++) {
                    client.getChannel("/b/a").publish(Map.of("n", n), null);
                }
                assertThat(posts(server)).as("nothing sent inside the batch").isEqualTo(postsBefore);
            });

            for (long n = 0; n < 3; n++) {
                assertThat(received.next().getDataAsMap()).containsEntry("n", n);
            }
            // Connects are small; the one large post carried the subscribe and the three publishes together.
            assertThat(server.requests().stream().skip(requestsBefore).filter(BatchAndTimesyncTest::isPost)
                    .map(request -> request.headers.getLongField(HttpHeader.CONTENT_LENGTH)))
                    .filteredOn(length -> length > 250).hasSize(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void nestedBatchesSendWhenTheOutermostEnds(String transport) throws Exception {
        try (TestServer server = new TestServer(engine -> engine.metaConnectDeliveryOnly(true), transports -> { },
                engine -> { });
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            Received received = subscribe(client, "/b/n");

            client.startBatch();
            client.getChannel("/b/n").publish(Map.of("n", 1), null);
            client.startBatch();
            client.getChannel("/b/n").publish(Map.of("n", 2), null);
            assertThat(client.endBatch()).isFalse();
            assertThat(client.endBatch()).isTrue();

            assertThat(received.next().getDataAsMap()).containsEntry("n", 1L);
            assertThat(received.next().getDataAsMap()).containsEntry("n", 2L);
            assertThatThrownBy(client::endBatch).isInstanceOf(IllegalStateException.class);
        }
    }

    private static long posts(TestServer server) {
        return server.requests().stream().filter(BatchAndTimesyncTest::isPost).count();
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void timesyncEstimatesTheServersClock(String transport) throws Exception {
        try (TestServer server = new TestServer(engine -> engine.timeout(Duration.ofMillis(200)), transports -> { },
                engine -> engine.addExtension(new org.bayeux.server.ext.TimesyncExtension()))) {
            // The server's clock is this machine's: the estimate must come out near zero.
            TimesyncExtension timesync = new TimesyncExtension();
            BayeuxClient client = new BayeuxClient(config(server.url(), transport).build());
            client.addExtension(timesync);
            try (client) {
                connected(client);
                // The server answers until the estimate is within 25 ms; on one machine that is at once.
                await().atMost(Clients.WAIT).until(() -> timesync.getSamples() >= 1);

                assertThat(Math.abs(timesync.getOffset())).isLessThan(200);
                assertThat(timesync.getLag()).isBetween(0L, 200L);
                assertThat(Math.abs(timesync.getServerTime() - System.currentTimeMillis())).isLessThan(500);
            }
        }
    }

    private static boolean isPost(RecordedRequest request) {
        return "POST".equals(request.method);
    }
}
