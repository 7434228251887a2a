package org.bayeux.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FailoverBalancer} in front of three tiny HTTP servers on port 0: where connections go (sticky and
 * round-robin), what a failed health check does (fronts move, and back; the failed node's connections reset), and a
 * black-holed node (open and silent until cut). Counts, and bounded waits for events.
 */
class FailoverBalancerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** How long a silent connection is read to show that nothing comes: a bound, not an event. */
    private static final int SILENCE_MILLIS = 300;

    private final List<Node> nodes = new ArrayList<>();
    private FailoverBalancer balancer;

    @BeforeEach
    void startNodes() throws IOException {
        for (int i = 0; i < 3; i++) {
            nodes.add(new Node(i));
        }
    }

    @AfterEach
    void stopAll() {
        if (balancer != null) {
            balancer.close();
        }
        nodes.forEach(Node::stop);
    }

    @Test
    void stickyFrontsSendEveryConnectionToTheirPrimaryNode() throws IOException {
        balancer = FailoverBalancer.builder(ports()).start();
        assertThat(balancer.fronts()).isEqualTo(3);
        for (int round = 0; round < 2; round++) {
            for (int front = 0; front < 3; front++) {
                assertThat(who(balancer.frontPort(front))).as("front %d", front).isEqualTo(front);
            }
        }
        assertThat(nodes).allSatisfy(node -> assertThat(node.whoRequests.get()).isEqualTo(2));
        assertThat(balancer.connectionsAccepted()).isEqualTo(6);
        assertThat(balancer.reroutes()).isZero();
        assertThat(balancer.connectionsCut()).isZero();
    }

    @Test
    void roundRobinSendsEachConnectionToTheNextHealthyNode() throws IOException {
        balancer = FailoverBalancer.builder(ports()).fronts(1).routing(FailoverBalancer.Routing.ROUND_ROBIN).start();
        for (int i = 0; i < 6; i++) {
            who(balancer.frontPort(0));
        }
        assertThat(nodes).allSatisfy(node -> assertThat(node.whoRequests.get()).isEqualTo(2));

        nodes.get(1).ready = false;
        await("node 1 marked failed").atMost(WAIT).until(() -> !balancer.isHealthy(1));
        for (int i = 0; i < 4; i++) {
            assertThat(who(balancer.frontPort(0))).isNotEqualTo(1);
        }
        assertThat(nodes.get(0).whoRequests.get() + nodes.get(2).whoRequests.get()).isEqualTo(8);
        assertThat(nodes.get(1).whoRequests.get()).isEqualTo(2);
    }

    @Test
    void aFailedNodesFrontMovesToTheNextHealthyNodeAndBack() throws IOException {
        balancer = FailoverBalancer.builder(ports()).healthPeriod(Duration.ofMillis(50)).start();
        nodes.get(0).ready = false;
        await("node 0 marked failed").atMost(WAIT).until(() -> !balancer.isHealthy(0));
        assertThat(balancer.routeOf(0)).isEqualTo(1);
        assertThat(balancer.routeOf(1)).isEqualTo(1);
        assertThat(balancer.routeOf(2)).isEqualTo(2);
        assertThat(who(balancer.frontPort(0))).isEqualTo(1);
        assertThat(balancer.reroutes()).isEqualTo(1);
        assertThat(balancer.nodesMarkedDown()).isEqualTo(1);

        nodes.get(0).ready = true;
        await("node 0 healthy again").atMost(WAIT).until(() -> balancer.isHealthy(0));
        assertThat(balancer.routeOf(0)).isEqualTo(0);
        assertThat(who(balancer.frontPort(0))).isEqualTo(0);
        assertThat(balancer.reroutes()).isEqualTo(2);
    }

    @Test
    void aStoppedNodeFailsItsCheckAndItsFrontMoves() throws IOException {
        balancer = FailoverBalancer.builder(ports()).healthPeriod(Duration.ofMillis(50)).start();
        nodes.get(2).stop();
        await("node 2 marked failed").atMost(WAIT).until(() -> !balancer.isHealthy(2));
        assertThat(balancer.routeOf(2)).as("after the last node, the first").isEqualTo(0);
        assertThat(who(balancer.frontPort(2))).isEqualTo(0);
    }

    @Test
    void theConnectionsOfAFailedNodeAreCutWithAReset() throws Exception {
        balancer = FailoverBalancer.builder(ports()).healthPeriod(Duration.ofMillis(50)).start();
        try (Socket onNode0 = held(balancer.frontPort(0)); Socket onNode1 = held(balancer.frontPort(1))) {
            assertThat(balancer.openConnections(0)).isEqualTo(1);
            assertThat(balancer.openConnections(1)).isEqualTo(1);
            nodes.get(0).ready = false;
            assertThat(ending(onNode0)).as("the client sees a reset")
                    .isInstanceOf(SocketException.class).hasMessageContaining("reset");
            assertThat(balancer.connectionsCut()).isEqualTo(1);
            assertThat(balancer.openConnections(0)).isZero();
            assertThat(balancer.openConnections(1)).as("another node's connection stays").isEqualTo(1);
            nodes.get(1).release.countDown();
            assertThat(readToEnd(onNode1)).contains("done");
        }
        assertThat(balancer.connectionsCut()).isEqualTo(1);
    }

    @Test
    void aBlackholedNodesConnectionsStayOpenAndSilentUntilItFails() throws Exception {
        balancer = FailoverBalancer.builder(ports()).healthPeriod(Duration.ofMillis(50)).start();
        Node node = nodes.get(0);
        try (Socket client = held(balancer.frontPort(0))) {
            balancer.blackhole(0);
            node.release.countDown();
            assertThat(node.finished.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the node wrote its end")
                    .isTrue();
            await("the node's last bytes dropped").atMost(WAIT).until(() -> balancer.bytesDropped() > 0);
            client.setSoTimeout(SILENCE_MILLIS);
            assertThat(ending(client)).as("open and silent: neither data nor end")
                    .isInstanceOf(SocketTimeoutException.class);

            // A request on a new connection goes nowhere either.
            long dropped = balancer.bytesDropped();
            try (Socket another = connect(balancer.frontPort(0))) {
                request(another, "/who");
                await("the request dropped").atMost(WAIT).until(() -> balancer.bytesDropped() > dropped);
                another.setSoTimeout(SILENCE_MILLIS);
                assertThat(ending(another)).isInstanceOf(SocketTimeoutException.class);
                assertThat(node.whoRequests.get()).isZero();

                node.ready = false;
                client.setSoTimeout((int) WAIT.toMillis());
                assertThat(ending(client)).as("cut once the node failed")
                        .isInstanceOf(SocketException.class).hasMessageContaining("reset");
                another.setSoTimeout((int) WAIT.toMillis());
                assertThat(ending(another)).isInstanceOf(SocketException.class)
                        .hasMessageContaining("reset");
            }
        }
        assertThat(balancer.connectionsCut()).isEqualTo(2);
        assertThat(who(balancer.frontPort(1))).as("other nodes are relayed as before").isEqualTo(1);
    }

    @Test
    void closeResetsEveryConnectionAndStopsEveryThread() throws Exception {
        balancer = FailoverBalancer.builder(ports()).start();
        try (Socket client = held(balancer.frontPort(0))) {
            balancer.close();
            assertThat(ending(client)).isInstanceOf(SocketException.class);
        }
        await("no balancer thread left").atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(thread -> thread.getName().startsWith("balancer-")));
    }

    @Test
    void settingsAreValidatedNamingTheKey() {
        assertThatThrownBy(() -> FailoverBalancer.builder(ports()).failAfter(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("failAfter: 0");
        assertThatThrownBy(() -> FailoverBalancer.builder(ports()).healthPeriod(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthPeriod");
        assertThatThrownBy(() -> FailoverBalancer.builder(ports()).healthPath("ready"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthPath");
        assertThatThrownBy(() -> FailoverBalancer.builder(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    private List<Integer> ports() {
        return nodes.stream().map(node -> node.server.getAddress().getPort()).toList();
    }

    /** @return the index of the node that answered GET /who through the port */
    private static int who(int port) throws IOException {
        try (Socket socket = connect(port)) {
            request(socket, "/who");
            String response = readToEnd(socket);
            int at = response.indexOf("node-");
            assertThat(at).as("answered by a node: %s", response).isNotNegative();
            return Character.getNumericValue(response.charAt(at + "node-".length()));
        }
    }

    /** @return a connection through the port on which the node has begun a response it holds until released */
    private static Socket held(int port) throws IOException {
        Socket socket = connect(port);
        request(socket, "/hold");
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        while (!seen.toString(StandardCharsets.US_ASCII).contains("started")) {
            int b = in.read();
            assertThat(b).as("the response began").isNotNegative();
            seen.write(b);
        }
        return socket;
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), (int) WAIT.toMillis());
        socket.setSoTimeout((int) WAIT.toMillis());
        return socket;
    }

    private static void request(Socket socket, String path) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /**
     * Reads what is left (bytes the node sent before, such as a chunk's end) until the connection ends.
     *
     * @return how it ended: the exception (a reset, or a read time-out for a silent connection), or null for an
     *         orderly end
     */
    private static Throwable ending(Socket socket) {
        byte[] buffer = new byte[1024];
        try {
            InputStream in = socket.getInputStream();
            for (int total = 0; total < 1024 * 1024; ) {
                int read = in.read(buffer);
                if (read < 0) {
                    return null;
                }
                total += read;
            }
            throw new AssertionError("a connection that does not end");
        } catch (IOException ended) {
            return ended;
        }
    }

    private static String readToEnd(Socket socket) throws IOException {
        return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }

    /** A tiny HTTP server: /health/ready (200 or 503), /who (its name), /hold (begins, waits for release, ends). */
    private static final class Node {
        final HttpServer server;
        final ExecutorService threads = Executors.newCachedThreadPool();
        final AtomicInteger whoRequests = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch finished = new CountDownLatch(1);
        volatile boolean ready = true;
        private boolean stopped;

        Node(int index) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
            server.setExecutor(threads);
            server.createContext("/health/ready", exchange -> answer(exchange, ready ? 200 : 503, "ready"));
            server.createContext("/who", exchange -> {
                whoRequests.incrementAndGet();
                answer(exchange, 200, "node-" + index);
            });
            server.createContext("/hold", exchange -> {
                exchange.sendResponseHeaders(200, 0);
                OutputStream body = exchange.getResponseBody();
                body.write("started\n".getBytes(StandardCharsets.US_ASCII));
                body.flush();
                try {
                    if (release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        body.write("done\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    body.close();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                } catch (IOException cut) {
                    // The balancer reset the connection.
                } finally {
                    finished.countDown();
                    exchange.close();
                }
            });
            server.start();
        }

        private static void answer(HttpExchange exchange, int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        synchronized void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
