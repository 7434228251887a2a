package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ForwardQueueTest {
    private record Sent(ForwardQueue.Entry entry, ForwardQueue.Batch batch) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final List<List<Long>> frames = new ArrayList<>();
    private final ForwardQueue queue = new ForwardQueue(3, 100, 1000, () -> ForwardQueue.WINDOW, this::send);

    private void send(ForwardQueue.Batch batch) {
        frames.add(batch.entries.stream().map(e -> e.seq).toList());
        batch.entries.forEach(e -> sent.add(new Sent(e, batch)));
    }

    /** Answers the batch that carried forward number {@code index} (counted from 0 over all sends). */
    private void reply(int index, boolean taken) {
        queue.replied(sent.get(index).batch(), taken);
    }

    private static Map<String, Object> fields() {
        return Map.of("channel", "/c", "message", "{}");
    }

    @Test
    void forwardsWaitForTheLinkThenChainAndAreDroppedOnceTaken() {
        assertThat(queue.offer(1, fields(), 10)).isTrue();
        assertThat(sent).as("not connected yet: held").isEmpty();
        assertThat(queue.resend()).as("nothing had been sent").isZero();
        assertThat(queue.offer(2, fields(), 10)).isTrue();
        assertThat(sent).extracting(s -> s.entry().seq).containsExactly(1L, 2L);
        assertThat(sent).extracting(s -> s.entry().data.get("prev")).containsExactly(0L, 1L);

        reply(1, true);
        assertThat(queue.size()).as("2 is taken, but 1 is not yet").isEqualTo(2);
        reply(0, true);
        assertThat(queue.size()).isZero();
        assertThat(queue.bytes()).isZero();
    }

    @Test
    void aLostForwardStopsTheFlowAndTheRestIsResentInOrder() {
        queue.resend();
        queue.offer(1, fields(), 10);
        queue.offer(2, fields(), 10);
        reply(0, false);
        queue.offer(3, fields(), 10);
        assertThat(sent).as("3 waits for the resend").hasSize(2);
        // A late "taken" still counts.
        reply(1, true);

        assertThat(queue.resend()).as("1 is sent again; 3 for the first time").isEqualTo(1);
        assertThat(sent.subList(2, sent.size())).extracting(s -> s.entry().seq).containsExactly(1L, 3L);
        // A failure from the earlier round is stale: the flow goes on.
        reply(0, false);
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
        assertThat(sent).as("two batches unanswered at most").extracting(s -> s.entry().data.get("prev"))
                .containsExactly(0L, 1L);
        reply(0, true);
        assertThat(sent).extracting(s -> s.entry().data.get("prev")).containsExactly(0L, 1L, 3L);
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.reset()).as("dropped unacknowledged").isEqualTo(2);
        assertThat(queue.offer(6, fields(), 10)).isTrue();
        assertThat(sent.get(sent.size() - 1).entry().prev).as("a new chain").isZero();
    }

    @Test
    void whileTheWindowIsFullForwardsWaitAndGoTogetherInTheNextBatch() {
        ForwardQueue big = new ForwardQueue(1000, 1_000_000, 25, () -> ForwardQueue.WINDOW, this::send);
        big.resend();
        for (long seq = 1; seq <= 7; seq++) {
            assertThat(big.offer(seq, fields(), 10)).isTrue();
        }
        assertThat(frames).as("two batches unanswered at most: 1, then 2, then the rest waits")
                .containsExactly(List.of(1L), List.of(2L));
        big.replied(sent.get(1).batch(), true);
        assertThat(frames).as("the window frees up once a batch is answered in full, in any order").hasSize(3);
        assertThat(frames.get(2)).as("at most 25 bytes a batch (10 each), one forward at least").containsExactly(3L, 4L);
        assertThat(sent).extracting(s -> s.entry().data.get("prev")).containsExactly(0L, 1L, 2L, 3L);
        big.replied(sent.get(2).batch(), true);
        assertThat(frames.get(3)).as("3 and 4 were answered as one").containsExactly(5L, 6L);
        assertThat(big.size()).as("1 unanswered keeps everything after it held").isEqualTo(7);
        big.replied(sent.get(0).batch(), true);
        assertThat(big.size()).as("5, 6 (unanswered) and 7 (unsent)").isEqualTo(3);
        assertThat(frames.get(4)).containsExactly(7L);
        assertThat(big.batches()).isEqualTo(5);
    }

    @Test
    void aResendGoesInBatchesThroughTheWindowAndSkipsWhatALateReplyTook() {
        ForwardQueue big = new ForwardQueue(1000, 1_000_000, 1000, () -> ForwardQueue.WINDOW, this::send);
        big.resend();
        for (long seq = 1; seq <= 4; seq++) {
            big.offer(seq, fields(), 10);
        }
        assertThat(frames).containsExactly(List.of(1L), List.of(2L));
        big.pause();
        big.replied(sent.get(1).batch(), true); // 2, late but taken
        big.replied(sent.get(0).batch(), false); // 1, lost

        assertThat(big.resend()).as("1 was sent before; 3 and 4 were not").isEqualTo(1);
        assertThat(frames.subList(2, frames.size())).as("2 was taken: not sent again").containsExactly(List.of(1L, 3L, 4L));
    }
}
