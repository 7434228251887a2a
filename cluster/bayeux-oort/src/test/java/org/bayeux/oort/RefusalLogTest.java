package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RefusalLogTest {
    @Test
    void aFloodOfRefusedJoinsWritesOneLineAPeriodWithTheCount() {
        List<String> lines = new ArrayList<>();
        AtomicLong clock = new AtomicLong(1_000);
        RefusalLog log = new RefusalLog(lines::add, clock::get);
        for (int i = 0; i < 1_000; i++) {
            log.refused("ws://attacker/" + i);
        }
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains("ws://attacker/0").doesNotContain("more refused");
        clock.addAndGet(RefusalLog.PERIOD_NANOS);
        log.refused("ws://attacker/last");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("ws://attacker/last").contains("(999 more refused since the last such line)");
    }

    @Test
    void whatAJoinClaimsReachesTheLogWithoutControlCharactersAndCutShort() {
        assertThat(RefusalLog.sanitized("ws://a\nFAKE LOG LINE\r\u001b[31m")).isEqualTo("ws://a?FAKE LOG LINE??[31m");
        assertThat(RefusalLog.sanitized("x".repeat(10_000))).hasSize(RefusalLog.MAX_CLAIM_CHARS + 1).endsWith("…");
        assertThat(RefusalLog.sanitized(null)).isEqualTo("nothing");
    }
}
