package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.oort.OriginSequences.Verdict;
import org.junit.jupiter.api.Test;

class OriginSequencesTest {
    private final OortStats stats = new OortStats();
    private final OriginSequences sequences = new OriginSequences(stats);
    private final List<String> delivered = new ArrayList<>();

    private Verdict accept(String origin, long seq, long prev) {
        return sequences.accept(origin, seq, prev, () -> delivered.add(origin + seq));
    }

    @Test
    void duplicatesAreDroppedGapsCountedAndNothingDeliveredOutOfOrder() {
        assertThat(accept("a", 7, 0)).as("a chain's start").isEqualTo(Verdict.DELIVER);
        assertThat(accept("a", 8, 7)).isEqualTo(Verdict.DELIVER);
        assertThat(accept("a", 8, 7)).isEqualTo(Verdict.DUPLICATE);
        assertThat(accept("a", 5, 4)).isEqualTo(Verdict.DUPLICATE);
        assertThat(accept("a", 11, 8)).as("9 and 10 never queued for this node").isEqualTo(Verdict.DELIVER);
        assertThat(accept("a", 13, 12)).as("12 was lost on the way").isEqualTo(Verdict.OUT_OF_ORDER);
        assertThat(accept("a", 12, 11)).isEqualTo(Verdict.DELIVER);
        assertThat(accept("a", 13, 12)).isEqualTo(Verdict.DELIVER);
        assertThat(accept("b", 1, 0)).isEqualTo(Verdict.DELIVER);
        assertThat(accept("c", 2, 1)).as("the chain's first was lost").isEqualTo(Verdict.OUT_OF_ORDER);

        assertThat(delivered).containsExactly("a7", "a8", "a11", "a12", "a13", "b1");
        assertThat(stats.duplicates()).isEqualTo(2);
        assertThat(stats.gaps()).isEqualTo(2);
        assertThat(stats.outOfOrder()).isEqualTo(2);
    }

    @Test
    void aForgottenOriginStartsAgain() {
        accept("a", 3, 0);
        sequences.forget("a");

        assertThat(accept("a", 1, 0)).isEqualTo(Verdict.DELIVER);
        assertThat(stats.duplicates()).isZero();
    }
}
