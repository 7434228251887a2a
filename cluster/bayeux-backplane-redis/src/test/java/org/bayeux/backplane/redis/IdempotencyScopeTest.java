package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.server.LocalSession;
import org.bayeux.backplane.redis.BackplaneFixture.Node;
import org.bayeux.server.config.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Idempotency keys belong to their publisher (issue 31, "idempotency keys shared by every publisher of a channel"):
 * two sessions of hand-written clients on a real node and redis-server.
 */
class IdempotencyScopeTest {
    private static final String CHANNEL = "/orders/new";
    @RegisterExtension
    final BackplaneFixture fixture = new BackplaneFixture();

    /**
     * The finding: a publisher that reuses a key another publisher will send (guessed, or seen in a delivered
     * message's {@code ext}) made the victim's publish acknowledged and dropped. Now each publisher's keys are its own.
     */
    @Test
    void anotherPublishersKeyDoesNotDropAVictimsPublish() throws Exception {
        Node node = fixture.node(BayeuxServerConfig.builder().build(), BudgetFixtures.backplane(fixture.config()));
        List<Object> received = new CopyOnWriteArrayList<>();
        LocalSession subscriber = BackplaneFixture.connected(node.engine(), "subscriber");
        subscriber.getChannel(CHANNEL).subscribe((channel, message) -> received.add(message.getData()), null);
        await().atMost(BackplaneFixture.WAIT).until(() -> node.engine().getChannel(CHANNEL) != null
                && !node.engine().getChannel(CHANNEL).getSubscribers().isEmpty());

        RawBayeux attacker = new RawBayeux(node.url());
        attacker.handshake();
        RawBayeux victim = new RawBayeux(node.url());
        victim.handshake();
        assertThat(attacker.publish(CHANNEL, "attacker", "order-42").get("successful")).isEqualTo(true);
        assertThat(victim.publish(CHANNEL, "victim", "order-42").get("successful")).isEqualTo(true);
        // The victim's own retry is still one publish.
        assertThat(victim.publish(CHANNEL, "victim", "order-42").get("successful")).isEqualTo(true);
        assertThat(victim.publish(CHANNEL, "last", null).get("successful")).isEqualTo(true);

        await("the last publish delivered").atMost(BackplaneFixture.WAIT).until(() -> received.contains("last"));
        assertThat(received).as("delivered, in order").containsExactly("attacker", "victim", "last");
    }
}
