package org.bayeux.api.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.bayeux.api.ChannelId;
import org.junit.jupiter.api.Test;

/** The answers a {@link HistoryAuthorizer} can give. */
class HistoryAccessTest {
    @Test
    void eachReachSaysWhatItAllows() {
        assertThat(HistoryAccess.none().isAllowed()).isFalse();
        assertThat(HistoryAccess.sinceSubscribed().isAllowed()).isTrue();
        assertThat(HistoryAccess.sinceSubscribed().lookBack()).isZero();
        assertThat(HistoryAccess.lookBack(Duration.ZERO)).isSameAs(HistoryAccess.sinceSubscribed());
        assertThat(HistoryAccess.lookBack(Duration.ofMinutes(5)).lookBack()).isEqualTo(Duration.ofMinutes(5));
        assertThat(HistoryAccess.lookBack(Duration.ofMinutes(5)).isUnbounded()).isFalse();
        assertThat(HistoryAccess.all().isAllowed()).isTrue();
        assertThat(HistoryAccess.all().isUnbounded()).isTrue();
        assertThat(HistoryAccess.all().lookBack()).isNull();
        assertThatThrownBy(() -> HistoryAccess.lookBack(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(HistoryAuthorizer.always(HistoryAccess.all()).authorize(null, ChannelId.of("/a"), null))
                .isSameAs(HistoryAccess.all());
    }
}
