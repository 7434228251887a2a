package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import org.bayeux.api.Promise;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Failures caused by clients, repeated, give a bounded number of log lines, none with a body or a clientId. */
class QuietLogsTest {
    private static final String SECRET = "body-secret-4f1c9a";

    private final EngineHarness engine = EngineHarness.start();
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
    private final Logger bayeuxLogger = (Logger) LoggerFactory.getLogger("org.bayeux");
    private Level levelBefore;

    @BeforeEach
    void capture() {
        levelBefore = bayeuxLogger.getLevel();
        // DEBUG too, so that the test sees that the rest of the failures went there, and only there.
        bayeuxLogger.setLevel(Level.DEBUG);
        captured.start();
        bayeuxLogger.addAppender(captured);
    }

    @AfterEach
    void stop() {
        bayeuxLogger.detachAppender(captured);
        bayeuxLogger.setLevel(levelBefore);
        engine.close();
    }

    private static final class FailingService extends BayeuxService {
        FailingService(BayeuxServer server) {
            super(server, "failing");
            addService("/service/quiet-logs-fail", (requester, request) -> {
                throw new IllegalStateException("the service failed");
            });
        }
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    private List<ILoggingEvent> aboveDebug() {
        return captured.list.stream().filter(event -> event.getLevel().isGreaterOrEqual(Level.INFO)
                && !event.getLoggerName().equals(BayeuxServerImpl.class.getName())).collect(Collectors.toList());
    }

    private static String fullText(ILoggingEvent event) {
        return event.getFormattedMessage()
                + (event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy()));
    }

    @Test
    void aHundredFailingServiceCallsLogOneWarningWithoutBodyOrClientId() {
        new FailingService(engine.server());
        TestClient client = connected();
        for (int i = 0; i < 100; i++) {
            assertThat(client.publish("/service/quiet-logs-fail", "{\"secret\":\"" + SECRET + i + "\"}")
                    .on("/service/quiet-logs-fail")).anyMatch(reply -> "500::service_failed".equals(reply.get("error")));
        }

        List<ILoggingEvent> lines = aboveDebug();
        assertThat(lines).as("log lines above DEBUG").hasSize(1);
        assertThat(lines.get(0).getLevel()).isEqualTo(Level.WARN);
        assertThat(lines.get(0).getThrowableProxy()).as("the first has its stack trace").isNotNull();
        for (ILoggingEvent line : lines) {
            assertThat(fullText(line)).doesNotContain(SECRET).doesNotContain(client.clientId());
        }
        assertThat(captured.list.stream().filter(event -> event.getLevel() == Level.DEBUG
                && event.getThrowableProxy() != null)).as("later stack traces, at DEBUG").hasSizeGreaterThanOrEqualTo(99);
    }

    @Test
    void aHundredFailingExtensionCallsLogOneWarningWithoutBodyOrClientId() {
        engine.server().addExtension(new ServerExtension() {
            @Override
            public void incoming(ServerSession session, ServerMessage.Mutable message, Promise<Boolean> promise) {
                if ("/fails".equals(message.getChannel())) {
                    throw new IllegalArgumentException("the extension failed");
                }
                promise.succeed(true);
            }
        });
        TestClient client = connected();
        for (int i = 0; i < 100; i++) {
            client.publish("/fails", "\"" + SECRET + i + "\"");
        }

        List<ILoggingEvent> lines = aboveDebug();
        assertThat(lines).as("log lines above DEBUG").hasSize(1);
        assertThat(fullText(lines.get(0))).doesNotContain(SECRET).doesNotContain(client.clientId())
                .contains("the extension failed");
    }
}
