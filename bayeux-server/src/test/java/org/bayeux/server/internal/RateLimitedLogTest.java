package org.bayeux.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger("org.bayeux.test.RateLimitedLogTest");
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final RateLimitedLog log = new RateLimitedLog(logger, Duration.ofSeconds(10), nanos::get);

    @BeforeEach
    void capture() {
        logger.setLevel(Level.INFO);
        captured.start();
        logger.addAppender(captured);
    }

    @AfterEach
    void release() {
        logger.detachAppender(captured);
    }

    private List<String> lines(Level level) {
        return captured.list.stream().filter(event -> event.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    @Test
    void firstOccurrenceIsLoggedThenOneSummaryPerIntervalPerKey() {
        for (int i = 0; i < 50; i++) {
            log.warn("a", "Failure {} of kind a", i, new IllegalStateException("boom"));
        }
        log.warn("b", "Failure of kind b");
        assertThat(lines(Level.WARN)).containsExactly("Failure 0 of kind a", "Failure of kind b");
        assertThat(captured.list.get(0).getThrowableProxy()).isNotNull();

        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        log.warn("a", "Failure {} of kind a", 50, new IllegalStateException("boom"));
        log.warn("a", "Failure {} of kind a", 51, new IllegalStateException("boom"));

        assertThat(lines(Level.WARN)).hasSize(3);
        assertThat(lines(Level.WARN).get(2)).isEqualTo("50 more like this since the last report (10s at most apart): "
                + "Failure 50 of kind a");
        assertThat(captured.list.get(2).getThrowableProxy()).as("no stack trace in a summary").isNull();
    }

    @Test
    void keysAreBounded() {
        for (int i = 0; i < RateLimitedLog.MAX_KEYS * 3; i++) {
            log.info("key" + i, "Event {}", i);
        }
        assertThat(lines(Level.INFO)).hasSize(RateLimitedLog.MAX_KEYS + 1);
    }
}
