package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two real servers (Jetty on 127.0.0.1, port 0), each with its own backplane on one redis-server, and our Java client
 * on each: over WebSocket on one node, long-polling on the other.
 */
class NetworkClientsTest {
    private static final Duration WAIT = BackplaneFixture.WAIT;
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    private String node() throws Exception {
        return fixture.node(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(5)).build(),
                new RedisBackplane(fixture.config().operationTimeout(Duration.ofMillis(500)).build())).url();
    }

    private BayeuxClient client(String url, String transport) throws Exception {
        return fixture.client(url, transport, Duration.ofMillis(500));
    }

    private static BlockingQueue<Object> subscribe(BayeuxClient client, String channel) throws Exception {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        Message reply = client.getChannel(channel).subscribeAsync((c, message) -> received.add(message.getData()))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reply.isSuccessful()).isTrue();
        return received;
    }

    private static Message publish(BayeuxClient client, String channel, Object data) throws Exception {
        return client.getChannel(channel).publishAsync(data).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Object next(BlockingQueue<Object> queue) throws InterruptedException {
        Object data = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(data).as("received within " + WAIT).isNotNull();
        return data;
    }

    @Test
    void clientsOnTwoNodesGetEachOthersPublishesOnceInOneOrderAnd503WhileRedisIsAway() throws Exception {
        BayeuxClient onA = client(node(), ClientTransport.WEBSOCKET);
        BayeuxClient onB = client(node(), ClientTransport.LONG_POLLING);
        BlockingQueue<Object> receivedOnA = subscribe(onA, "/chat/room");
        BlockingQueue<Object> receivedOnB = subscribe(onB, "/chat/room");

        assertThat(publish(onA, "/chat/room", "hello from A").isSuccessful()).isTrue();
        assertThat(publish(onB, "/chat/room", "hello from B").isSuccessful()).isTrue();

        for (BlockingQueue<Object> received : List.of(receivedOnA, receivedOnB)) {
            assertThat(next(received)).isEqualTo("hello from A");
            assertThat(next(received)).isEqualTo("hello from B");
        }

        fixture.redis().kill();
        Message refused = publish(onA, "/chat/room", "lost");
        assertThat(refused.isSuccessful()).isFalse();
        assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("503::backplane_unavailable");
        fixture.redis().restart();
        int[] attempt = {0};
        String[] acknowledged = new String[1];
        await("publishes succeed again").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String data = "back-" + attempt[0]++;
                    if (publish(onB, "/chat/room", data).isSuccessful()) {
                        acknowledged[0] = data;
                        return true;
                    }
                    return false;
                });

        // A publish that failed by timeout may still have been stored; a refused one never reaches anyone twice.
        List<List<Object>> afterOutage = new ArrayList<>();
        for (BlockingQueue<Object> received : List.of(receivedOnA, receivedOnB)) {
            List<Object> seen = new ArrayList<>();
            for (int i = 0; i <= attempt[0] + 1 && !seen.contains(acknowledged[0]); i++) {
                seen.add(next(received));
            }
            assertThat(seen).endsWith(acknowledged[0]).doesNotHaveDuplicates();
            afterOutage.add(seen);
        }
        assertThat(afterOutage.get(1)).as("one order on both nodes").isEqualTo(afterOutage.get(0));
        assertThat(onA.isConnected()).as("the clients stayed connected throughout").isTrue();
        assertThat(onB.isConnected()).isTrue();
    }
}
