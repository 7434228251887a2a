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
    void aSecondChainStartAJumpOrABackwardPrevIsRefused() {
        assertThat(accept("a", 7, 0)).isEqualTo(Verdict.DELIVER);
        assertThat(accept("a", (1L << 53) - 10, 0)).as("a second start").isEqualTo(Verdict.REFUSED);
        assertThat(accept("a", 8 + (1L << 33), 7)).as("a jump past 2^32").isEqualTo(Verdict.REFUSED);
        assertThat(accept("a", 9, 9)).as("prev not before seq").isEqualTo(Verdict.REFUSED);
        assertThat(accept("a", 7 + (1L << 32), 7)).as("a jump of 2^32 exactly").isEqualTo(Verdict.DELIVER);
        assertThat(delivered).containsExactly("a7", "a" + (7 + (1L << 32)));
        assertThat(stats.refusedForwards()).isEqualTo(3);
    }

    @Test
    void aChainForAnEarlierIncarnationOfThisNodeIsStaleAndTheNewOneStartsAnew() {
        String[] self = {"b1"};
        assertThat(sequences.accept("a", "b1", () -> self[0], 5, 0, () -> delivered.add("a5"))).isEqualTo(Verdict.DELIVER);
        self[0] = "b2";
        assertThat(sequences.accept("a", "b1", () -> self[0], 6, 5, () -> delivered.add("a6"))).isEqualTo(Verdict.STALE);
        assertThat(sequences.accept("a", "b2", () -> self[0], 7, 0, () -> delivered.add("a7"))).isEqualTo(Verdict.DELIVER);
        assertThat(sequences.accept("a", "b2", () -> self[0], 8, 7, () -> delivered.add("a8"))).isEqualTo(Verdict.DELIVER);
        assertThat(delivered).containsExactly("a5", "a7", "a8");
        assertThat(stats.stale()).isEqualTo(1);
    }

    @Test
    void aForgottenOriginStartsAgain() {
        accept("a", 3, 0);
        sequences.forget("a");

        assertThat(accept("a", 1, 0)).isEqualTo(Verdict.DELIVER);
        assertThat(stats.duplicates()).isZero();
    }
}
