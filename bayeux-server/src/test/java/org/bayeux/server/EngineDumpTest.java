package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.bayeux.api.Promise;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BayeuxEngine#dump()}: the figures an operator needs (sessions by kind, held connects, queued bytes, carriers
 * by transport, channels with their subscribers, the timer thread, the cluster), and nothing a client sent.
 */
class EngineDumpTest {
    private static final String SECRET_BODY = "a-body-no-dump-may-show";
    private static final String SECRET_TOKEN = "a-token-no-dump-may-show";

    private final EngineHarness engine = EngineHarness.start(config -> config.timeout(Duration.ofSeconds(30)));

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void countsSessionsQueuesCarriersAndChannelsButShowsNoBodyTokenOrClientId() {
        TestClient socket = engine.newSocketClient();
        socket.handshake(",\"ext\":{\"auth\":{\"token\":\"" + SECRET_TOKEN + "\"}}");
        socket.firstConnect();
        assertThat(socket.subscribe("/chat/room")).containsEntry("successful", true);
        socket.connect();
        ServerSession socketSession = engine.server().getSession(socket.clientId());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> engine.server().isConnectHeld(socketSession));
        TestClient polling = engine.newClient();
        polling.handshake();
        polling.firstConnect();
        assertThat(polling.subscribe("/chat/room")).containsEntry("successful", true);
        assertThat(polling.subscribe("/news")).containsEntry("successful", true);
        LocalSession service = engine.server().newLocalSession("service");
        service.handshake();

        // The polling client holds no connect: the message waits in its queue; the socket gets it pushed.
        engine.server().getChannel("/chat/room").publish(service.getServerSession(), Map.of("text", SECRET_BODY),
                Promise.noop());
        ServerSession pollingSession = engine.server().getSession(polling.clientId());
        await().atMost(Duration.ofSeconds(10)).until(() -> pollingSession.getQueueSize() == 1);
        String dump = engine.server().dump();

        assertThat(dump).startsWith("BayeuxEngine started\n")
                .contains("+- sessions: 3 (remote 2, local 1), connects held 1\n")
                .contains("+- queues: 1 messages, " + pollingSession.getQueueBytes() + " bytes (largest "
                        + pollingSession.getQueueBytes() + " bytes)\n")
                .contains("long-polling 1").contains("websocket 1")
                .contains("|  +- /chat/room: 2 subscribers\n").contains("|  +- /news: 1 subscribers\n")
                .contains("+- executors\n|  +- scheduler: threads 1")
                .contains("+- cluster: none\n");
        assertThat(dump).doesNotContain(SECRET_BODY).doesNotContain(SECRET_TOKEN)
                .doesNotContain(socket.clientId()).doesNotContain(polling.clientId())
                .doesNotContain(service.getId());
        assertThat(dump.indexOf("/chat/room")).as("the busiest channel first").isLessThan(dump.indexOf("/news"));
    }

    @Test
    void listsAHundredChannelsAndCountsTheRest() {
        for (int i = 0; i < EngineDump.MAX_CHANNELS_LISTED + 5; i++) {
            engine.server().createChannelIfAbsent("/many/" + i, channel -> channel.setPersistent(true));
        }

        String dump = engine.server().dump();

        assertThat(dump).contains("+- channels: " + (EngineDump.MAX_CHANNELS_LISTED + 5) + ", subscriptions 0\n")
                .contains("|  +- ... 5 more\n");
        assertThat(dump.lines().filter(line -> line.startsWith("|  +- /many/"))).hasSize(EngineDump.MAX_CHANNELS_LISTED);
    }

    @Test
    void tellsTheLifeCycleState() {
        assertThat(engine.server().dump()).startsWith("BayeuxEngine started\n");
        engine.server().drain(Duration.ZERO);
        assertThat(engine.server().dump()).startsWith("BayeuxEngine draining\n");
        engine.server().stop();
        assertThat(engine.server().dump()).startsWith("BayeuxEngine stopped\n").contains(", shut down\n");
    }
}
