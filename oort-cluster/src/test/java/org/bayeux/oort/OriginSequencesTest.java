package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import org.bayeux.oort.OriginSequences.Verdict;
import org.junit.jupiter.api.Test;

class OriginSequencesTest {
    private final OortStats stats = new OortStats();
    private final OriginSequences sequences = new OriginSequences(stats);

    @Test
    void duplicatesAreDroppedAndGapsCountedPerOrigin() {
        assertThat(sequences.accept("a", 7)).as("first seen starts the origin").isEqualTo(Verdict.DELIVER);
        assertThat(sequences.accept("a", 8)).isEqualTo(Verdict.DELIVER);
        assertThat(sequences.accept("a", 8)).isEqualTo(Verdict.DUPLICATE);
        assertThat(sequences.accept("a", 5)).isEqualTo(Verdict.DUPLICATE);
        assertThat(sequences.accept("a", 11)).isEqualTo(Verdict.DELIVER);
        assertThat(sequences.accept("b", 1)).isEqualTo(Verdict.DELIVER);

        assertThat(stats.duplicates()).isEqualTo(2);
        assertThat(stats.gaps()).isEqualTo(2);
    }

    @Test
    void aForgottenOriginStartsAgain() {
        sequences.accept("a", 3);
        sequences.forget("a");

        assertThat(sequences.accept("a", 1)).isEqualTo(Verdict.DELIVER);
        assertThat(stats.duplicates()).isZero();
    }
}
