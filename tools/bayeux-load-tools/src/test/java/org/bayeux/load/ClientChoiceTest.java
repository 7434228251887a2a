package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.bayeux.load.server.FloorServer;
import org.bayeux.load.server.LoadServer;
import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every client of {@code --client} ({@code raw}, {@code cometd}; {@code ours} in {@link LoadToolTest}) runs a small
 * load against our load server over WebSocket and long-polling, and every client against the floor server over both,
 * with every expected delivery arriving once. Small profiles: counting, not speed.
 */
class ClientChoiceTest {
    /** 20 clients in 1 of 2 rooms each: 10 members per room; 200 msg/s for 1.5 s. */
    private static final List<String> SMALL = List.of("--clients", "20", "--rooms", "2", "--rooms-per-client", "1",
            "--publishers", "2", "--rate", "200", "--size", "64", "--ramp-up", "500ms", "--warm-up", "500ms",
            "--duration", "1s", "--drain", "5s", "--quiet");
    private static final int MEMBERS_PER_ROOM = 10;
    private static final int PUBLISHED = 300;

    @TempDir
    Path output;
    private StandaloneServer server;
    private FloorServer floor;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (floor != null) {
            floor.close();
        }
    }

    private String startServer() throws Exception {
        server = new StandaloneServer(StandaloneOptions.parse("--port", "0", "--host", "127.0.0.1"));
        new LoadServer(server.getEngine());
        return "http://127.0.0.1:" + server.getPort() + "/bayeux";
    }

    private String startFloor() throws Exception {
        floor = new FloorServer("127.0.0.1", 0);
        return "http://127.0.0.1:" + floor.getPort() + "/bayeux";
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> loadCompletes(String url, String client, String transport) throws Exception {
        List<String> args = new ArrayList<>(SMALL);
        args.addAll(List.of("--url", url, "--client", client, "--transport", transport, "--output",
                output.toString()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String what = client + " over " + transport;
        assertThat(exit).as("%s: exit code; stderr: %s", what, err.toString(StandardCharsets.UTF_8))
                .isEqualTo(LoadMain.COMPLETE);
        Map<String, Object> result = new ObjectMapper().readValue(output.resolve("result.json").toFile(), Map.class);
        Map<String, Object> messages = (Map<String, Object>) result.get("messages");
        assertThat(messages).as(what).containsEntry("published", PUBLISHED)
                .containsEntry("expected", PUBLISHED * MEMBERS_PER_ROOM)
                .containsEntry("delivered", PUBLISHED * MEMBERS_PER_ROOM)
                .containsEntry("lost", 0).containsEntry("duplicated", 0).containsEntry("errors", 0);
        assertThat((Map<String, Object>) result.get("configuration")).as(what).containsEntry("client", client)
                .containsEntry("transport", transport);
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> serverAfter(Map<String, Object> result) {
        return (Map<String, Object>) result.get("serverAfter");
    }

    @Test
    void theRawClientGetsEveryMessageFromOurServerOverEachTransport() throws Exception {
        String url = startServer();
        int runs = 0;
        for (String transport : List.of("websocket", "long-polling", "mix")) {
            Map<String, Object> result = loadCompletes(url, "raw", transport);
            runs++;
            // The server counts over its life, across the runs.
            assertThat(serverAfter(result)).as(transport).containsEntry("server", "bayeux")
                    .containsEntry("publishesReceived", PUBLISHED * runs);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theRawClientMeasuresIdleMemory() throws Exception {
        String url = startServer();
        List<String> args = new ArrayList<>(SMALL);
        args.addAll(List.of("--url", url, "--client", "raw", "--idle", "--output", output.toString()));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LoadMain.run(args.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isEqualTo(LoadMain.COMPLETE);
        Map<String, Object> result = new ObjectMapper().readValue(output.resolve("result.json").toFile(), Map.class);
        assertThat((Map<String, Object>) result.get("serverBefore")).containsEntry("heapAfterFullGc", true)
                .containsEntry("sessions", 1);
        assertThat(serverAfter(result)).containsEntry("heapAfterFullGc", true).containsEntry("sessions", 20);
    }

    @Test
    void theCometDClientGetsEveryMessageFromOurServerOverBothTransports() throws Exception {
        String url = startServer();
        int runs = 0;
        for (String transport : List.of("websocket", "long-polling")) {
            Map<String, Object> result = loadCompletes(url, "cometd", transport);
            runs++;
            // The server counts over its life, across the runs.
            assertThat(serverAfter(result)).as(transport).containsEntry("server", "bayeux")
                    .containsEntry("publishesReceived", PUBLISHED * runs);
        }
    }

    @Test
    void everyClientGetsEveryMessageFromTheFloorServer() throws Exception {
        String url = startFloor();
        for (String client : List.of("raw", "cometd", "ours")) {
            for (String transport : List.of("websocket", "long-polling")) {
                Map<String, Object> result = loadCompletes(url, client, transport);
                assertThat(serverAfter(result)).as(client + " over " + transport).containsEntry("server", "floor")
                        .containsEntry("droppedDeliveries", 0).containsKey("processCpuSeconds");
            }
        }
    }
}
