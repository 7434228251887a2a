package org.bayeux.demo.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.Test;

/**
 * The clustered demo on the Redis backplane ({@code bin/bayeux demo --nodes 2 --backplane …} starts two nodes with
 * these options): two standalone servers with the demo chat and {@code --backplane} on a redis-server of the test's
 * own, a chat client on each: one member list, messages both ways, private messages across; a node that dies loses
 * its members on the other once its presence entries expire; the chat's cluster channel is closed to clients.
 */
class BackplaneDemoTest {
    private static final Duration WAIT = DemoChatter.WAIT;
    private static final Duration PRESENCE_TTL = Duration.ofSeconds(2);

    private static StandaloneServer node(RedisProcess redis) throws Exception {
        return DemoNodes.start("--backplane", redis.uri(), "--set", "timeout=5s", "--set",
                "presenceTtl=" + PRESENCE_TTL.toMillis() + "ms");
    }

    private static void bothRead(StandaloneServer a, StandaloneServer b) {
        await("both nodes read from Redis").atMost(WAIT)
                .until(() -> a.getBackplane().isConnected() && b.getBackplane().isConnected());
    }

    @Test
    void twoClientsOnTwoNodesChatAndSeeOneMemberList() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); StandaloneServer a = node(redis);
                StandaloneServer b = node(redis)) {
            bothRead(a, b);
            try (DemoChatter ann = DemoChatter.converse(a, b)) {
                // The chat's cluster channel is no client's business: no wildcard that covers it, no publish.
                for (String channel : List.of("/**", "/chat-cluster/*", ChatService.PRIVATE_CHANNEL)) {
                    Message reply = ann.client.getChannel(channel).subscribeAsync((c, m) -> { })
                            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    assertThat(reply.isSuccessful()).as("subscribe to " + channel).isFalse();
                }
                Message forged = ann.client.getChannel(ChatService.PRIVATE_CHANNEL).publishAsync(Map.of("node", "x",
                        "to", "Ann", "note", Map.of("type", "private", "from", "Mallory", "text", "hi")))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(forged.isSuccessful()).isFalse();
                Message other = ann.client.getChannel("/chat/room/*").subscribeAsync((c, m) -> { })
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(other.isSuccessful()).as("other wildcards stay open").isTrue();
                assertThat(DemoNodes.chatOf(a).chat().members("lobby")).containsExactly("Ann");
            }
        }
    }

    @Test
    void membersOfANodeThatDiesDisappearOnTheOthers() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); StandaloneServer a = node(redis);
                StandaloneServer b = node(redis)) {
            bothRead(a, b);
            try (DemoChatter ann = new DemoChatter(a, "Ann", ClientTransport.WEBSOCKET);
                    DemoChatter bob = new DemoChatter(b, "Bob", ClientTransport.WEBSOCKET)) {
                await("one member list").atMost(WAIT).untilAsserted(() -> {
                    assertThat(ann.memberList()).isEqualTo(List.of("Ann", "Bob"));
                    assertThat(bob.memberList()).isEqualTo(List.of("Ann", "Bob"));
                });
                // B stops refreshing its presence, as a dead node does (no leave): its entries expire.
                long halted = System.nanoTime();
                b.getBackplane().stop();
                await("Bob gone from Ann's list").atMost(WAIT)
                        .untilAsserted(() -> assertThat(ann.memberList()).isEqualTo(List.of("Ann")));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - halted);
                assertThat(tookMs).as("not before the expiry, refreshed every third of it").isGreaterThanOrEqualTo(
                        PRESENCE_TTL.toMillis() - PRESENCE_TTL.toMillis() / 3);
                assertThat(DemoNodes.chatOf(a).chat().members("lobby")).containsExactly("Ann");
                Message sent = ann.client.remoteCallAsync("/service/chat/private", Map.of("to", "Bob", "text",
                        "there?"), WAIT).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(((Number) sent.getDataAsMap().get("delivered")).intValue()).isZero();
            }
        }
    }
}
