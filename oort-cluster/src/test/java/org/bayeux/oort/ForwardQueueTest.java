package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ForwardQueueTest {
    private record Sent(ForwardQueue.Entry entry, long round) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final ForwardQueue queue = new ForwardQueue(3, 100, (entry, round) -> sent.add(new Sent(entry, round)));

    private static Map<String, Object> fields() {
        return Map.of("origin", "o", "channel", "/c", "message", "{}");
    }

    @Test
    void forwardsWaitForTheLinkThenChainAndAreDroppedOnceTaken() {
        assertThat(queue.offer(1, fields(), 10)).isTrue();
        assertThat(sent).as("not connected yet: held").isEmpty();
        assertThat(queue.resend()).as("nothing had been sent").isZero();
        assertThat(queue.offer(2, fields(), 10)).isTrue();
        assertThat(sent).extracting(s -> s.entry().seq).containsExactly(1L, 2L);
        assertThat(sent).extracting(s -> s.entry().data.get("prev")).containsExactly(0L, 1L);

        queue.replied(sent.get(1).entry(), sent.get(1).round(), true);
        assertThat(queue.size()).as("2 is taken, but 1 is not yet").isEqualTo(2);
        queue.replied(sent.get(0).entry(), sent.get(0).round(), true);
        assertThat(queue.size()).isZero();
        assertThat(queue.bytes()).isZero();
    }

    @Test
    void aLostForwardStopsTheFlowAndTheRestIsResentInOrder() {
        queue.resend();
        queue.offer(1, fields(), 10);
        queue.offer(2, fields(), 10);
        queue.replied(sent.get(0).entry(), sent.get(0).round(), false);
        queue.offer(3, fields(), 10);
        assertThat(sent).as("3 waits for the resend").hasSize(2);
        // A late "taken" still counts.
        queue.replied(sent.get(1).entry(), sent.get(1).round(), true);

        assertThat(queue.resend()).as("1 is sent again; 3 for the first time").isEqualTo(1);
        assertThat(sent.subList(2, sent.size())).extracting(s -> s.entry().seq).containsExactly(1L, 3L);
        // A failure from the earlier round is stale: the flow goes on.
        queue.replied(sent.get(0).entry(), sent.get(0).round(), false);
        assertThat(queue.needsResend()).isFalse();
        assertThat(queue.resent()).isEqualTo(1);
    }

    @Test
    void theQueueIsBoundedInCountAndBytesAndTheNextForwardNamesTheLastQueued() {
        queue.resend();
        assertThat(queue.offer(1, fields(), 60)).isTrue();
        assertThat(queue.offer(2, fields(), 50)).as("past 100 bytes").isFalse();
        assertThat(queue.offer(3, fields(), 10)).isTrue();
        assertThat(queue.offer(4, fields(), 10)).isTrue();
        assertThat(queue.offer(5, fields(), 1)).as("past 3 forwards").isFalse();
        assertThat(sent).extracting(s -> s.entry().data.get("prev")).containsExactly(0L, 1L, 3L);
        assertThat(queue.reset()).as("dropped unacknowledged").isEqualTo(3);
        assertThat(queue.offer(6, fields(), 10)).isTrue();
        assertThat(sent.get(sent.size() - 1).entry().prev).as("a new chain").isZero();
    }
}
