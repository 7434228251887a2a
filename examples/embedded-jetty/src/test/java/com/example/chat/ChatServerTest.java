package com.example.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The application, built from our artifacts by their coordinates, serves its page to Chromium; the page's CometD
 * JavaScript client handshakes, subscribes, calls the echo service and publishes, over WebSocket and over
 * long-polling, and a server-side session of the application sees what the browser published.
 */
class ChatServerTest {
    private ChatServer server;
    private final List<String> seenByTheServer = new CopyOnWriteArrayList<>();
    private final Semaphore messagesSeen = new Semaphore(0);

    @BeforeEach
    void start() throws Exception {
        server = ChatServer.start("127.0.0.1", 0, Path.of(required("cometd.js.dir")));
        LocalSession observer = server.bayeux().newLocalSession("observer");
        observer.handshake();
        observer.getChannel("/chat/room").subscribe((channel, message) -> {
            seenByTheServer.add(String.valueOf(message.getData()));
            messagesSeen.release();
        }, null);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void aBrowserChatsThroughTheCometDJavaScriptClient(String transport) throws Exception {
        Path script = Path.of("src/test/js/browser-check.mjs").toAbsolutePath();
        Path output = Files.createTempFile("browser-check", ".txt");
        ProcessBuilder builder = new ProcessBuilder("node", script.toString(), server.uri().toString(), transport)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("PLAYWRIGHT_CORE", required("playwright.core"));
        String chromium = System.getProperty("chromium", "");
        if (!chromium.isBlank() && !chromium.startsWith("${")) {
            builder.environment().put("CHROMIUM", chromium);
        }
        Process node = builder.start();
        try {
            boolean ended = node.waitFor(120, TimeUnit.SECONDS);
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(ended, "the browser check did not end within 120 s; it printed:\n" + printed);
            assertEquals(0, node.exitValue(), "the browser check failed; it printed:\n" + printed);
            assertTrue(printed.contains("status: connected (" + transport + ")"), printed);
            assertTrue(printed.contains("log: echo: ping"), printed);
            assertTrue(printed.contains("log: chat: hello from the browser over " + transport), printed);
            // The browser got its message back, so the server has fanned it out; the observer's copy may still be
            // on its way: one message is all the browser sent to the room.
            assertTrue(messagesSeen.tryAcquire(30, TimeUnit.SECONDS), "the server-side session saw nothing");
            assertTrue(seenByTheServer.get(0).contains("hello from the browser over " + transport),
                    "the server-side session saw " + seenByTheServer);
        } finally {
            node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(output);
        }
    }

    private static String required(String property) throws IOException {
        String value = System.getProperty(property, "");
        if (value.isBlank() || value.startsWith("${")) {
            throw new IOException("system property " + property + " is not set: run this project through bin/bayeux"
                    + " test, or pass -D" + property + "=...");
        }
        return value;
    }
}
