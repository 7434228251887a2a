package org.bayeux.client.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.client.transport.ClientTransport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 10,000 clients in one JVM, sharing one {@link ClientResources}, connect over WebSocket to one server, subscribe to
 * one channel, and each receive one broadcast, within a bounded time; the test prints the time and heap it took.
 *
 * <p>The server runs in a process of its own ({@link LoadTestServer}): the clients' 10,000 sockets and the server's
 * 10,000 would together exceed the usual limit of 20,000 file descriptors per process.</p>
 */
class ManyClientsTest {
    private static final int CLIENTS = Integer.getInteger("bayeux.manyClients", 10_000);
    /** Handshakes and subscriptions on their way at once; more would only queue in the server's accept backlog. */
    private static final int IN_FLIGHT = 256;
    private static final Duration CONNECT_BUDGET = Duration.ofSeconds(120);
    private static final Duration BROADCAST_BUDGET = Duration.ofSeconds(60);
    private static final Duration DISCONNECT_BUDGET = Duration.ofSeconds(60);
    private static final String CHANNEL = "/load/all";

    @Test
    void tenThousandClientsOverWebSocketEachReceiveABroadcast() throws Exception {
        requireFileDescriptors(CLIENTS + 2_000);
        long baselineHeap = usedHeapAfterGc();
        int baselineThreads = ManagementFactory.getThreadMXBean().getThreadCount();
        try (ServerProcess server = ServerProcess.start();
             ClientResources shared = ClientResources.builder().maxThreads(16).selectors(2).build()) {
            BayeuxClientConfig config = BayeuxClientConfig.builder(server.url)
                    .transports(ClientTransport.WEBSOCKET).build();
            CountDownLatch subscribed = new CountDownLatch(CLIENTS);
            CountDownLatch delivered = new CountDownLatch(CLIENTS);
            AtomicInteger refused = new AtomicInteger();
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            MessageListener onBroadcast = (channel, message) -> delivered.countDown();
            MessageListener onSubscribed = (channel, reply) -> {
                inFlight.release();
                if (reply.isSuccessful()) {
                    subscribed.countDown();
                } else {
                    refused.incrementAndGet();
                }
            };
            List<BayeuxClient> clients = new ArrayList<>(CLIENTS);
            // Failures are retried by the clients; they are counted to explain a run that took too long.
            Map<String, AtomicInteger> failedMeta = new ConcurrentHashMap<>();
            MessageListener onMetaFailure = (channel, reply) -> {
                if (!reply.isSuccessful()) {
                    failedMeta.computeIfAbsent(reply.getChannel() + " " + reply.get("failure"),
                            key -> new AtomicInteger()).incrementAndGet();
                }
            };

            long connectStart = System.nanoTime();
            for (int i = 0; i < CLIENTS; i++) {
                if (i % 1000 == 0) {
                    System.out.println("progress: " + millisSince(connectStart) + " ms: " + i + " clients started, "
                            + (CLIENTS - subscribed.getCount()) + " subscribed");
                }
                assertThat(inFlight.tryAcquire(CONNECT_BUDGET.toSeconds(), TimeUnit.SECONDS))
                        .as("a slot for client %d (refused so far: %d)", i, refused.get()).isTrue();
                BayeuxClient client = new BayeuxClient(config, shared);
                clients.add(client);
                client.getChannel("/meta/handshake").addListener(onMetaFailure);
                client.getChannel("/meta/connect").addListener(onMetaFailure);
                client.handshake();
                client.getChannel(CHANNEL).subscribe(onBroadcast, onSubscribed);
            }
            assertThat(subscribed.await(CONNECT_BUDGET.toMillis(), TimeUnit.MILLISECONDS))
                    .as("all subscribed within %s; %d left, %d refused; failed meta replies: %s", CONNECT_BUDGET,
                            subscribed.getCount(), refused.get(), failedMeta).isTrue();
            long connectMillis = millisSince(connectStart);
            long heapWithClients = usedHeapAfterGc();
            long directWithClients = usedDirectMemory();
            int threadsWithClients = ManagementFactory.getThreadMXBean().getThreadCount();

            long broadcastStart = System.nanoTime();
            clients.get(0).getChannel(CHANNEL).publish(Map.of("to", "everyone"), null);
            assertThat(delivered.await(BROADCAST_BUDGET.toMillis(), TimeUnit.MILLISECONDS))
                    .as("every client received the broadcast within %s; %d did not", BROADCAST_BUDGET,
                            delivered.getCount()).isTrue();
            long broadcastMillis = millisSince(broadcastStart);

            long disconnectStart = System.nanoTime();
            for (BayeuxClient client : clients) {
                client.disconnect((MessageListener) null);
            }
            long deadline = System.nanoTime() + DISCONNECT_BUDGET.toNanos();
            for (BayeuxClient client : clients) {
                long left = Math.max(1, deadline - System.nanoTime());
                assertThat(client.waitFor(Duration.ofNanos(left), BayeuxClient.State.DISCONNECTED)).isTrue();
            }
            long disconnectMillis = millisSince(disconnectStart);

            String figures = String.format("%d clients over WebSocket, shared resources (16 threads, 2 selectors):%n"
                            + "  handshake + subscribe of all: %d ms%n"
                            + "  broadcast reaching all: %d ms%n"
                            + "  disconnect of all: %d ms%n"
                            + "  heap used after GC: %d MiB before the clients, %d MiB with them (%d KiB per client)%n"
                            + "  direct buffers with the clients: %d MiB%n"
                            + "  threads: %d before, %d with the clients%n",
                    CLIENTS, connectMillis, broadcastMillis, disconnectMillis, baselineHeap >> 20,
                    heapWithClients >> 20, (heapWithClients - baselineHeap) / CLIENTS >> 10, directWithClients >> 20,
                    baselineThreads,
                    threadsWithClients);
            System.out.print(figures);
            Files.writeString(Path.of("target", "many-clients-figures.txt"), figures);
            assertThat(threadsWithClients - baselineThreads).as("threads added for %d clients", CLIENTS)
                    .isLessThan(64);
        }
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long usedDirectMemory() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> "direct".equals(pool.getName())).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    /** Fails, saying what to do, when this process may not open enough sockets. */
    private static void requireFileDescriptors(long needed) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof com.sun.management.UnixOperatingSystemMXBean)) {
            throw new AssertionError("Cannot tell this system's file descriptor limit (" + os.getName()
                    + "); the many-clients test needs " + needed);
        }
        long allowed = ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount();
        if (allowed < needed) {
            throw new AssertionError("The many-clients test needs " + needed + " file descriptors per process; this "
                    + "one may open " + allowed + ". Raise the limit before running the tests (for example "
                    + "`ulimit -n 20000`, or `prlimit --nofile=20000:20000 --pid $$` as root), or set "
                    + "-Dbayeux.manyClients to a smaller number for a local run.");
        }
    }

    /** The server's process: started on the test's class path, stopped by closing its input, killed if need be. */
    private static final class ServerProcess implements AutoCloseable {
        private final Process process;
        private final String url;
        private final Deque<String> lastLines;

        private ServerProcess(Process process, String url, Deque<String> lastLines) {
            this.process = process;
            this.url = url;
            this.lastLines = lastLines;
        }

        static ServerProcess start() throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"),
                    LoadTestServer.class.getName()).redirectErrorStream(true).start();
            Deque<String> lastLines = new ArrayDeque<>();
            CompletableFuture<Integer> port = new CompletableFuture<>();
            Thread reader = new Thread(() -> readOutput(process, lastLines, port), "load-test-server-output");
            reader.setDaemon(true);
            reader.start();
            try {
                int listening = port.get(60, TimeUnit.SECONDS);
                return new ServerProcess(process, "http://127.0.0.1:" + listening + "/bayeux", lastLines);
            } catch (Exception failure) {
                stop(process);
                throw new AssertionError("The load test server did not start; its last output: " + lastLines,
                        failure);
            }
        }

        /** Reads everything the server prints, so that it never blocks on a full pipe; keeps the last lines. */
        private static void readOutput(Process process, Deque<String> lastLines, CompletableFuture<Integer> port) {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith(LoadTestServer.READY)) {
                        port.complete(Integer.parseInt(line.substring(LoadTestServer.READY.length()).trim()));
                    }
                    synchronized (lastLines) {
                        lastLines.addLast(line);
                        if (lastLines.size() > 50) {
                            lastLines.removeFirst();
                        }
                    }
                }
            } catch (IOException ended) {
                // The process ended.
            } finally {
                port.completeExceptionally(new IllegalStateException("The server's output ended"));
            }
        }

        private static void stop(Process process) throws InterruptedException {
            try {
                process.getOutputStream().close();
            } catch (IOException alreadyClosed) {
                // Stopping anyway.
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop(process);
        }
    }
}
