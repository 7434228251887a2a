package org.bayeux.standalone.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.backplane.redis.RedisProcess;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.Test;

/**
 * The clustered demo on the Redis backplane ({@code bin/bayeux demo --nodes 2 --backplane …} starts two nodes with
 * these options): two standalone servers with {@code --demo --backplane} on a redis-server of the test's own, a chat
 * client on each: one member list, messages both ways, private messages across; a node that dies loses its members
 * on the other within the roster's expiry; the cluster channels are closed to clients.
 */
class BackplaneDemoTest {
    private static final Duration WAIT = DemoChatter.WAIT;

    private static StandaloneServer node(RedisProcess redis) throws Exception {
        return new StandaloneServer(StandaloneOptions.parse("--demo", "--backplane", redis.uri(),
                "--set", "timeout=5s").port(0).host("127.0.0.1"));
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
                // The cluster's own channels are no client's business: no wildcard that covers them, no publish.
                for (String channel : List.of("/**", "/chat-cluster/*", "/chat-cluster/roster",
                        BackplaneChat.PRIVATE_CHANNEL)) {
                    Message reply = ann.client.getChannel(channel).subscribeAsync((c, m) -> { })
                            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    assertThat(reply.isSuccessful()).as("subscribe to " + channel).isFalse();
                }
                Message forged = ann.client.getChannel(BackplaneChat.ROSTER_CHANNEL).publishAsync(Map.of("node", "x",
                        "seq", 1, "rooms", Map.of("lobby", List.of("Mallory")), "names", List.of("Mallory")))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(forged.isSuccessful()).isFalse();
                Message other = ann.client.getChannel("/chat/room/*").subscribeAsync((c, m) -> { })
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(other.isSuccessful()).as("other wildcards stay open").isTrue();
                assertThat(a.getChat().members("lobby")).containsExactly("Ann");
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
                // B's chat goes silent as a dead node's does (no goodbye): A drops its roster on expiry.
                long halted = System.nanoTime();
                b.getBackplaneChat().halt();
                await("Bob gone from Ann's list").atMost(WAIT)
                        .untilAsserted(() -> assertThat(ann.memberList()).isEqualTo(List.of("Ann")));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - halted);
                assertThat(tookMs).as("not before the expiry").isGreaterThanOrEqualTo(
                        BackplaneChat.DEFAULT_EXPIRY.toMillis() - BackplaneChat.DEFAULT_HEARTBEAT.toMillis());
                assertThat(a.getChat().members("lobby")).containsExactly("Ann");
                Message sent = ann.client.remoteCallAsync("/service/chat/private", Map.of("to", "Bob", "text",
                        "there?"), WAIT).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(((Number) sent.getDataAsMap().get("delivered")).intValue()).isZero();
            }
        }
    }
}
