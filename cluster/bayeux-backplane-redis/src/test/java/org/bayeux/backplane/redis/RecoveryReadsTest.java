package org.bayeux.backplane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/** Recoveries of one channel that wait together share one history read, each taking what is past its own offset. */
class RecoveryReadsTest {
    private record Read(String channel, long offset, String epoch, CompletableFuture<HistoryStore.Recovered> result) {
    }

    private final List<Read> reads = new ArrayList<>();
    private final RecoveryReads shared = new RecoveryReads((channel, offset, epoch, maxMessages, maxBytes) -> {
        Read read = new Read(channel, offset, epoch, new CompletableFuture<>());
        reads.add(read);
        return read.result();
    });

    /** What the script answers for a history holding offsets first..top of epoch "e". */
    private static HistoryStore.Recovered history(long since, long first, long top) {
        if (since < first - 1) {
            return HistoryStore.Recovered.position("e", top, false, 0);
        }
        List<byte[]> messages = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (long offset = since + 1; offset <= top; offset++) {
            messages.add(("m" + offset).getBytes(StandardCharsets.UTF_8));
            offsets.add(offset);
        }
        return new HistoryStore.Recovered("e", top, true, messages, offsets, offsets.stream().map(o -> 0L).toList(), 0);
    }

    private static List<Long> offsets(CompletableFuture<HistoryStore.Recovered> result) {
        return result.join().offsets();
    }

    @Test
    void recoveriesThatWaitWhileAReadIsInFlightShareTheNextOneFromTheLowestOffset() {
        CompletableFuture<HistoryStore.Recovered> first = shared.recover("/a", 5, "e", 1000, 1 << 20);
        assertThat(reads).hasSize(1);
        CompletableFuture<HistoryStore.Recovered> second = shared.recover("/a", 7, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> third = shared.recover("/a", 6, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> atTop = shared.recover("/a", 10, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> other = shared.recover("/b", 1, "e", 1000, 1 << 20);
        assertThat(reads).as("one in flight per channel").hasSize(2);

        reads.get(0).result().complete(history(5, 1, 10));
        assertThat(offsets(first)).containsExactly(6L, 7L, 8L, 9L, 10L);
        assertThat(reads).as("the three that waited: one read from the lowest").hasSize(3);
        assertThat(reads.get(2).offset()).isEqualTo(6);

        reads.get(2).result().complete(history(6, 1, 10));
        assertThat(offsets(third)).containsExactly(7L, 8L, 9L, 10L);
        assertThat(offsets(second)).containsExactly(8L, 9L, 10L);
        assertThat(second.join().parsed())
                .as("the recoveries served by one read parse each entry once, into one message they all queue")
                .isSameAs(third.join().parsed());
        assertThat(atTop.join().recovered()).isTrue();
        assertThat(offsets(atTop)).isEmpty();
        assertThat(other).isNotDone();
        assertThat(shared.reads()).isEqualTo(3);
    }

    @Test
    void whenTheHistoryDoesNotReachTheLowestOffsetTheOthersAreReadAlone() {
        shared.recover("/a", 9, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> old = shared.recover("/a", 1, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> recent = shared.recover("/a", 8, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> otherEpoch = shared.recover("/a", 8, "x", 1000, 1 << 20);
        reads.get(0).result().complete(history(9, 5, 10));
        assertThat(reads).as("one read per epoch asked").hasSize(3);
        Read shared1 = reads.stream().filter(r -> r.epoch().equals("e") && r.offset() == 1).findFirst().orElseThrow();
        Read epochX = reads.stream().filter(r -> r.epoch().equals("x")).findFirst().orElseThrow();
        shared1.result().complete(history(1, 5, 10));
        epochX.result().complete(HistoryStore.Recovered.position("e", 10, false, 0));

        assertThat(old.join().recovered()).isFalse();
        assertThat(reads.get(reads.size() - 1).offset()).as("8 is read on its own").isEqualTo(8);
        reads.get(reads.size() - 1).result().complete(history(8, 5, 10));
        assertThat(offsets(recent)).containsExactly(9L, 10L);
        assertThat(otherEpoch.join().recovered()).isFalse();
    }

    @Test
    void aFailedReadFailsEveryRecoveryItServedAndTheNextOnesReadAgain() {
        shared.recover("/a", 1, "e", 1000, 1 << 20);
        CompletableFuture<HistoryStore.Recovered> waiting = shared.recover("/a", 2, "e", 1000, 1 << 20);
        reads.get(0).result().completeExceptionally(new IllegalStateException("Redis away"));
        assertThat(reads).hasSize(2);
        reads.get(1).result().completeExceptionally(new IllegalStateException("Redis away"));
        assertThat(waiting).isCompletedExceptionally();
        CompletableFuture<HistoryStore.Recovered> later = shared.recover("/a", 2, "e", 1000, 1 << 20);
        assertThat(reads).hasSize(3);
        reads.get(2).result().complete(history(2, 1, 3));
        assertThat(offsets(later)).containsExactly(3L);
    }
}
