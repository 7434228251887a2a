package org.bayeux.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.BayeuxClient.State;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;

/** The connect loop follows the server's advice: the interval between connects, and a hold of any length. */
class AdviceTest {
    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void theNextConnectWaitsTheAdvisedInterval(String transport) throws Exception {
        List<Long> connectTimes = new CopyOnWriteArrayList<>();
        try (TestServer server = new TestServer(engine -> engine.timeout(Duration.ofMillis(100))
                .interval(Duration.ofMillis(400)), transports -> { },
                engine -> engine.addExtension(recordingConnects(connectTimes)));
             BayeuxClient client = connected(config(server.url(), transport).build())) {
            await().atMost(Clients.WAIT).until(() -> connectTimes.size() >= 5);

            for (int i = 2; i < 5; i++) {
                // Each connect is held 100 ms, then the client waits 400 ms.
                assertThat(connectTimes.get(i) - connectTimes.get(i - 1)).isGreaterThanOrEqualTo(490);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void aHoldLongerThanTheNetworkDelayIsWaitedFor(String transport) throws Exception {
        List<Long> connectTimes = new CopyOnWriteArrayList<>();
        try (TestServer server = new TestServer(engine -> engine.timeout(Duration.ofMillis(1500)), transports -> { },
                engine -> engine.addExtension(recordingConnects(connectTimes)));
             BayeuxClient client = connected(config(server.url(), transport).maxNetworkDelay(Duration.ofMillis(500))
                     .build())) {
            List<State> states = new CopyOnWriteArrayList<>();
            client.addStateListener((changed, state) -> states.add(state));

            await().atMost(Clients.WAIT).until(() -> connectTimes.size() >= 4);

            // (A listener added just after the client connected may still be told of that change.)
            assertThat(states).as("no connect failed").isSubsetOf(State.CONNECTED);
            assertThat(connectTimes.get(3) - connectTimes.get(2)).isGreaterThanOrEqualTo(1400);
        }
    }

    private static ServerExtension recordingConnects(List<Long> times) {
        return new ServerExtension() {
            @Override
            public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
                if (Message.META_CONNECT.equals(message.getChannel())) {
                    times.add(System.nanoTime() / 1_000_000);
                }
                return true;
            }
        };
    }
}
