package org.bayeux.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A position, and the seams that are positions of no message: offset 0 of an epoch, {@link ChannelPosition#NONE}. */
class ChannelPositionTest {
    @Test
    void seamsArePositionsOfNoMessageAndRoundTripAsText() {
        assertThat(ChannelPosition.parse(ChannelPosition.NONE.toString())).isEqualTo(ChannelPosition.NONE);
        assertThat(ChannelPosition.parse("k3J9x0aQ:0")).isEqualTo(new ChannelPosition("k3J9x0aQ", 0));
        assertThat(ChannelPosition.parse("k3J9x0aQ:12")).isEqualTo(new ChannelPosition("k3J9x0aQ", 12));
        assertThatThrownBy(() -> new ChannelPosition("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ChannelPosition("e", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChannelPosition.parse("no colon")).isInstanceOf(IllegalArgumentException.class);
    }
}
