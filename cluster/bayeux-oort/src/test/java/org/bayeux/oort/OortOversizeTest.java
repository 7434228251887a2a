package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

/**
 * Issue 31, item 5: a message too large to forward on an observed channel is answered with Oort's own error, and
 * however many such publishes a client makes, the log gets one WARN line per period, not one per message.
 */
class OortOversizeTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int PUBLISHES = 200;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
    private final Logger oortLogger = (Logger) LoggerFactory.getLogger("org.bayeux.oort");

    @BeforeEach
    void capture() {
        captured.start();
        oortLogger.addAppender(captured);
    }

    @AfterEach
    void closeAll() throws Exception {
        oortLogger.detachAppender(captured);
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    @Test
    void oversizePublishesGetTheirOwnErrorAndOneLogLine() throws Exception {
        OortTestNode a = new OortTestNode();
        closeables.add(a);
        OortTestNode b = new OortTestNode();
        closeables.add(b);
        b.start(oort -> { });
        a.start(oort -> oort.seeds(List.of(b.url)).maxMessageBytes(1024));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        LocalSession speaker = a.connected("speaker");

        for (int i = 0; i < PUBLISHES; i++) {
            CompletableFuture<Message> reply = new CompletableFuture<>();
            speaker.getChannel("/chat/room").publish("x".repeat(2000), (c, message) -> reply.complete(message));
            Message answer = reply.get(5, TimeUnit.SECONDS);
            assertThat(answer.isSuccessful()).isFalse();
            assertThat(answer.getError()).isEqualTo("413::oort_message_too_large");
        }

        assertThat(a.oort.stats().oversize()).isEqualTo(PUBLISHES);
        List<String> warnings = captured.list.stream()
                .filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().contains("oort.maxMessageBytes"))
                .map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(warnings).as("one line per period, whatever the number of publishes").hasSize(1);
        assertThat(warnings.get(0)).contains("/chat/room").doesNotContain("xxxx");
    }
}
