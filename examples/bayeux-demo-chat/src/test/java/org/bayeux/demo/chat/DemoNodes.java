package org.bayeux.demo.chat;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;

/**
 * The chat as {@code bin/bayeux demo} runs it: a real standalone server on port 0 of 127.0.0.1 that loads this
 * module's classes with {@code --classpath} (as it loads a user's jar from {@code apps/}) and serves the built page
 * ({@code target/web}) with {@code --static}. The tests reach the chat through the application SPI: the server's
 * started applications.
 */
final class DemoNodes {
    private DemoNodes() {
    }

    /**
     * @param more further command-line options (a cluster's, {@code --set})
     * @return a started server running the demo chat
     */
    static StandaloneServer start(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--classpath", classes().toString(), "--static", web().toString(),
                "--extensions", "ack"));
        args.addAll(List.of(more));
        return new StandaloneServer(StandaloneOptions.parse(args.toArray(String[]::new)).port(0).host("127.0.0.1"));
    }

    /** @return the demo chat the server started, found among its applications */
    static ChatApplication chatOf(StandaloneServer server) {
        return server.getApplications().stream().filter(ChatApplication.class::isInstance)
                .map(ChatApplication.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError("the demo chat is not among " + server.getApplications()));
    }

    /** @return the folder (target/classes) or jar this module's classes come from */
    static Path classes() throws URISyntaxException {
        return Path.of(ChatApplication.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** @return the built page, target/web (the surefire configuration names it) */
    static Path web() {
        Path web = Path.of(System.getProperty("bayeux.demo.web", "target/web"));
        if (!Files.isRegularFile(web.resolve("index.html"))) {
            throw new IllegalStateException("the demo page is not built in " + web.toAbsolutePath());
        }
        return web;
    }
}
