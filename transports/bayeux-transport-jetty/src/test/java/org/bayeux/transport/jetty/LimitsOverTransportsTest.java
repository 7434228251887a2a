package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.bayeux.server.Limit;
import org.bayeux.server.config.BayeuxServerConfig;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's input limits over real long-polling and WebSocket connections: each hit is answered with its Bayeux
 * error, the offending session goes on, and another client is unaffected.
 */
class LimitsOverTransportsTest {
    private static final int ONE_MIB = 1024 * 1024;

    private HttpTestServer server;
    private WebSocketClient webSockets;

    private void start(Consumer<BayeuxServerConfig.Builder> config) throws Exception {
        // Bodies up to 4 MiB reach the engine, so that its own limits answer them; no sweep changes channel counts.
        server = new HttpTestServer("jackson", engine -> {
            engine.maxMessageSizeBytes(4 * ONE_MIB).sweepPeriod(Duration.ofHours(1));
            config.accept(engine);
        }, transport -> { });
        webSockets = new WebSocketClient();
        // Replies echo the channel name they refuse.
        webSockets.setMaxTextMessageSize(8 * ONE_MIB);
        webSockets.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (webSockets != null) {
            webSockets.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    private long hits(Limit limit) {
        return server.engine.getLimitCounters().get(limit);
    }

    /** A handshaken client over one transport; {@code %s} in a batch stands for its clientId. */
    private interface Peer {
        List<Map<String, Object>> call(String batch) throws Exception;
    }

    private Peer peer(String transport) throws Exception {
        Peer peer;
        if ("websocket".equals(transport)) {
            WsClient socket = WsClient.open(webSockets,
                    URI.create("ws://127.0.0.1:" + server.connector.getLocalPort() + "/bayeux"), server.codec());
            socket.handshake();
            peer = batch -> socket.call(batch.replace("%s", socket.clientId));
        } else {
            String clientId = (String) http("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0).get("clientId");
            peer = batch -> http(batch.replace("%s", clientId));
        }
        String connectionType = "websocket".equals(transport) ? "websocket" : "long-polling";
        assertThat(reply(peer.call("[{\"channel\":\"/meta/connect\",\"connectionType\":\"" + connectionType
                + "\",\"advice\":{\"timeout\":0},\"clientId\":\"%s\"}]"), "/meta/connect"))
                .containsEntry("successful", true);
        return peer;
    }

    private List<Map<String, Object>> http(String json) {
        ContentResponse response = server.send(server.post("/bayeux", json));
        assertThat(response.getStatus()).isEqualTo(200);
        return server.messages(response);
    }

    private static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        return messages.stream().filter(m -> channel.equals(m.get("channel")) && m.containsKey("successful"))
                .findFirst().orElseThrow(() -> new AssertionError("No reply on " + channel + " in " + messages));
    }

    private static Map<String, Object> publish(Peer peer, String channel) throws Exception {
        return reply(peer.call("[{\"channel\":\"" + channel + "\",\"data\":1,\"clientId\":\"%s\"}]"), channel);
    }

    private static Map<String, Object> subscribe(Peer peer, String channel) throws Exception {
        return reply(peer.call("[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel
                + "\",\"clientId\":\"%s\"}]"), "/meta/subscribe");
    }

    /** Another client can still subscribe and publish. */
    private void assertServes(Peer other, String channel) throws Exception {
        assertThat(subscribe(other, channel)).containsEntry("successful", true);
        assertThat(publish(other, channel + "/x")).containsEntry("successful", true);
    }

    private static String hugeName() {
        return "/a".repeat(ONE_MIB / 2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void channelNamesTooLongOrTooDeepAreRefused(String transport) throws Exception {
        start(config -> { });
        Peer attacker = peer(transport);
        Peer other = peer(transport);

        assertThat(publish(attacker, hugeName())).containsEntry("error", "405::channel_length_limit");
        assertThat(subscribe(attacker, hugeName())).containsEntry("error", "405::channel_length_limit");
        String deep = "/d".repeat(33);
        assertThat(publish(attacker, deep)).containsEntry("error", "405::channel_segments_limit");
        assertThat(subscribe(attacker, deep + "/**")).containsEntry("error", "405::channel_segments_limit");

        assertThat(hits(Limit.CHANNEL_NAME_LENGTH)).isEqualTo(2);
        assertThat(hits(Limit.CHANNEL_SEGMENTS)).isEqualTo(2);
        assertThat(publish(attacker, "/fine")).containsEntry("successful", true);
        assertServes(other, "/other");
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void subscriptionsPerSessionAreCapped(String transport) throws Exception {
        start(config -> config.maxSubscriptionsPerSession(3));
        Peer attacker = peer(transport);
        Peer other = peer(transport);
        for (String channel : List.of("/s/1", "/s/2", "/s/3")) {
            assertThat(subscribe(attacker, channel)).containsEntry("successful", true);
        }

        assertThat(subscribe(attacker, "/s/4")).containsEntry("successful", false)
                .containsEntry("error", "403::subscription_limit");
        assertThat(hits(Limit.SUBSCRIPTIONS_PER_SESSION)).isEqualTo(1);
        assertThat(subscribe(attacker, "/s/1")).as("not a new one").containsEntry("successful", true);
        assertThat(publish(attacker, "/s/free")).containsEntry("successful", true);
        assertServes(other, "/s/4");
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void channelsInTheServerAreCapped(String transport) throws Exception {
        start(config -> config.maxChannels(8));
        Peer attacker = peer(transport);
        Peer other = peer(transport);
        server.engine.createChannelIfAbsent("/existing", channel -> channel.setPersistent(true));
        for (int i = 0; server.engine.getChannels().size() < 8 && i < 20; i++) {
            assertThat(publish(attacker, "/c/" + i)).containsEntry("successful", true);
        }

        assertThat(publish(attacker, "/c/more")).containsEntry("error", "403::channel_limit");
        assertThat(server.engine.getChannels()).hasSize(8);
        assertThat(hits(Limit.CHANNELS)).isEqualTo(1);
        assertThat(publish(other, "/existing")).containsEntry("successful", true);
        assertThat(publish(attacker, "/c/0")).as("an existing channel").containsEntry("successful", true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void channelCreationsPerSecondAreCapped(String transport) throws Exception {
        start(config -> config.maxChannelCreationsPerSecond(2));
        Peer attacker = peer(transport);
        Peer other = peer(transport);
        int refused = 0;
        for (int i = 0; i < 20; i++) {
            Map<String, Object> reply = publish(attacker, "/r/" + i);
            if (!Boolean.TRUE.equals(reply.get("successful"))) {
                assertThat(reply).containsEntry("error", "403::channel_rate_limit");
                refused++;
            }
        }

        assertThat(refused).isPositive();
        assertThat(hits(Limit.CHANNEL_CREATION_RATE)).isEqualTo(refused);
        assertThat(publish(attacker, "/r/0")).as("an existing channel").containsEntry("successful", true);
        assertServes(other, "/other");
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aBatchOfSixtyThousandMessagesIsRefusedWithOneReply(String transport) throws Exception {
        start(config -> { });
        Peer attacker = peer(transport);
        Peer other = peer(transport);
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 60_000; i++) {
            batch.append(i == 0 ? "{\"id\":\"first\"," : ",{").append("\"channel\":\"/b\",\"clientId\":\"%s\"}");
        }

        List<Map<String, Object>> replies = attacker.call(batch.append(']').toString());

        assertThat(replies).hasSize(1);
        assertThat(replies.get(0)).containsEntry("id", "first").containsEntry("successful", false)
                .containsEntry("error", "413::batch_limit");
        assertThat(hits(Limit.MESSAGES_PER_BATCH)).isEqualTo(1);
        assertThat(server.engine.getChannel("/b")).as("nothing of the batch was processed").isNull();
        assertThat(publish(attacker, "/after")).containsEntry("successful", true);
        assertServes(other, "/other");
    }
}
