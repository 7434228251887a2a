package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.bayeux.api.Promise;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.api.server.SessionListener;
import org.bayeux.load.server.LoadServer;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load client counts correctly: every expected delivery on a healthy server, a dropped delivery as lost and a
 * repeated one as duplicated (with exit code 1), bad options with exit code 2. Small profiles: these tests check
 * counting, not speed.
 */
class LoadToolTest {
    /** 20 clients in 2 of 5 rooms each: 8 members per room. */
    private static final List<String> SMALL = List.of("--clients", "20", "--rooms", "5", "--rooms-per-client", "2",
            "--publishers", "4", "--rate", "200", "--size", "64", "--ramp-up", "500ms", "--warm-up", "500ms",
            "--duration", "1s", "--drain", "5s", "--quiet");
    private static final int MEMBERS_PER_ROOM = 8;

    @TempDir
    Path output;
    private StandaloneServer server;
    private final ExecutorService duplicator = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        duplicator.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    private String startServer() throws Exception {
        server = new StandaloneServer(StandaloneOptions.parse("--port", "0", "--host", "127.0.0.1"));
        new LoadServer(server.getEngine());
        return "http://127.0.0.1:" + server.getPort() + "/bayeux";
    }

    private Run load(String url, String transport, String... more) {
        List<String> args = new ArrayList<>(SMALL);
        args.addAll(List.of("--url", url, "--transport", transport, "--output", output.toString()));
        args.addAll(List.of(more));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(int exit, String out, String err) {
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> result() throws Exception {
        return new ObjectMapper().readValue(output.resolve("result.json").toFile(), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, Object> result, String name) {
        return (Map<String, Object>) result.get(name);
    }

    @Test
    void everyExpectedDeliveryArrivesOnceOverEachTransport() throws Exception {
        String url = startServer();
        for (String transport : List.of("websocket", "long-polling", "mix")) {
            Run run = load(url, transport);

            assertThat(run.exit()).as("exit code; stderr: %s", run.err()).isEqualTo(LoadMain.COMPLETE);
            Map<String, Object> result = result();
            Map<String, Object> messages = section(result, "messages");
            long published = ((Number) messages.get("published")).longValue();
            assertThat(published).as("200/s for 1.5 s").isEqualTo(300);
            assertThat(messages).as(transport).containsEntry("expected", (int) published * MEMBERS_PER_ROOM)
                    .containsEntry("delivered", (int) published * MEMBERS_PER_ROOM)
                    .containsEntry("lost", 0).containsEntry("duplicated", 0).containsEntry("errors", 0);
            assertThat(((Number) section(result, "latency").get("measuredDeliveries")).longValue())
                    .as("deliveries of messages published after the warm-up").isEqualTo(200L * MEMBERS_PER_ROOM);
            assertThat(section(result, "serverAfter")).containsEntry("server", "bayeux").containsKey("heapUsedBytes")
                    .containsKey("processCpuSeconds").containsKey("sessions");
            assertThat(section(result, "configuration")).containsEntry("transport", transport);
            assertThat(Files.readString(output.resolve("report.html"))).contains("<svg").contains("p99");
            assertThat(run.out()).contains("lost 0, duplicated 0");
        }
    }

    @Test
    void aDroppedDeliveryIsLostAndARepeatedOneDuplicated() throws Exception {
        String url = startServer();
        AtomicBoolean dropped = new AtomicBoolean();
        AtomicBoolean repeated = new AtomicBoolean();
        SessionExtension faults = new SessionExtension() {
            @Override
            public ServerMessage send(ServerSession session, ServerMessage message) {
                long seq = Payload.seq(message.getData());
                if (seq == 5 && dropped.compareAndSet(false, true)) {
                    return null;
                }
                if (seq == 7 && repeated.compareAndSet(false, true)) {
                    Object data = message.getData();
                    String channel = message.getChannel();
                    // Not from inside the delivery: the session's lock is held there.
                    duplicator.execute(() -> session.deliver(null, channel, data, Promise.noop()));
                }
                return message;
            }
        };
        server.getEngine().addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                session.addExtension(faults);
            }
        });

        Run run = load(url, "websocket");

        assertThat(run.exit()).as("exit code; stderr: %s", run.err()).isEqualTo(LoadMain.INCOMPLETE);
        Map<String, Object> messages = section(result(), "messages");
        assertThat(messages).containsEntry("lost", 1).containsEntry("duplicated", 1);
        assertThat(((Number) messages.get("delivered")).longValue() + 1)
                .isEqualTo(((Number) messages.get("expected")).longValue());
    }

    @Test
    void idleModeReportsTheServerHeapPerClient() throws Exception {
        String url = startServer();

        Run run = load(url, "websocket", "--idle");

        assertThat(run.exit()).as("exit code; stderr: %s", run.err()).isEqualTo(LoadMain.COMPLETE);
        Map<String, Object> result = result();
        assertThat(section(result, "messages")).containsEntry("published", 0).containsEntry("expected", 0);
        // The baseline is taken with only the asking client connected, so that the difference is the others'.
        assertThat(section(result, "serverBefore")).containsEntry("heapAfterFullGc", true)
                .containsEntry("sessions", 1);
        assertThat(section(result, "serverAfter")).containsEntry("heapAfterFullGc", true)
                .containsEntry("sessions", 20);
        assertThat(((Number) result.get("serverHeapBytesPerClient")).longValue()).isPositive();
    }

    @Test
    void badOptionsAreRefusedWithUsageExitCode() {
        Run zero = load("http://127.0.0.1:1/bayeux", "websocket", "--clients", "0");
        assertThat(zero.exit()).isEqualTo(LoadMain.USAGE);
        assertThat(zero.err()).contains("--clients must be positive, got 0");

        Run rooms = load("http://127.0.0.1:1/bayeux", "websocket", "--rooms", "2", "--rooms-per-client", "3");
        assertThat(rooms.exit()).isEqualTo(LoadMain.USAGE);
        assertThat(rooms.err()).contains("--rooms-per-client (3) cannot exceed --rooms (2)");

        Run duration = load("http://127.0.0.1:1/bayeux", "websocket", "--duration", "soon");
        assertThat(duration.exit()).isEqualTo(LoadMain.USAGE);
        assertThat(duration.err()).contains("'soon' is not a duration");

        Run transport = load("http://127.0.0.1:1/bayeux", "carrier-pigeon");
        assertThat(transport.exit()).isEqualTo(LoadMain.USAGE);

        Run client = load("http://127.0.0.1:1/bayeux", "websocket", "--client", "telegraph");
        assertThat(client.exit()).isEqualTo(LoadMain.USAGE);
        assertThat(client.err()).contains("'telegraph' is not ours, raw or cometd");
    }

    @Test
    void aServerThatIsNotThereFailsTheRunWithoutHanging() throws Exception {
        String url;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            url = "http://127.0.0.1:" + closed.getLocalPort() + "/bayeux";
        }
        Run run = load(url, "long-polling", "--clients", "2", "--publishers", "1");
        assertThat(run.exit()).isEqualTo(LoadMain.FAILED);
        assertThat(run.err()).contains("clients connected");
    }

    @Test
    void theFileDescriptorLimitIsCheckedWithAClearMessage() {
        LoadOptions options = new LoadOptions();
        options.clients = 10_000;
        assertThat(LoadMain.checkDescriptors(options, OptionalLong.of(20_000))).isNull();
        assertThat(LoadMain.checkDescriptors(options, OptionalLong.of(1024)))
                .contains("10000 clients need about 10200 file descriptors").contains("ulimit -n 10200");
        options.transport = LoadOptions.TransportMix.LONG_POLLING;
        assertThat(LoadMain.checkDescriptors(options, OptionalLong.of(10_500))).contains("20200");
        assertThat(LoadMain.checkDescriptors(options, OptionalLong.empty())).isNull();
    }

    @Test
    void helpExplainsEveryOption() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = LoadMain.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err);
        assertThat(exit).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        for (String option : List.of("--url", "--transport", "--clients", "--rooms", "--rooms-per-client", "--rate",
                "--size", "--batch", "--publishers", "--ramp-up", "--warm-up", "--duration", "--drain", "--max-pending",
                "--idle", "--source-addresses", "--threads", "--output", "--label", "--quiet", "--client")) {
            assertThat(help).contains(option);
        }
    }
}
