package org.bayeux.load;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee10.websocket.jakarta.client.JakartaWebSocketClientContainer;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --client cometd}: the CometD 8 Java client (Maven Central), used through its public API only: WebSocket
 * through its Jakarta transport on Jetty's Jakarta WebSocket client, long-polling through its Jetty
 * {@code HttpClient} transport. The clients share one HTTP client, one WebSocket container and one scheduler (a
 * CometD client makes a scheduler thread of its own otherwise); each keeps its own cookies, as CometD does.
 */
final class CometDClientFactory implements ClientFactory {
    private static final Logger LOG = LoggerFactory.getLogger(CometDClientFactory.class);
    /** Like CometD's long-polling limit, not the Jakarta container's 64 KiB. */
    private static final int MAX_MESSAGE_BYTES = 1024 * 1024;
    private final LoadOptions options;
    private final HttpClient http;
    private final JakartaWebSocketClientContainer webSockets;
    private final ScheduledThreadPoolExecutor scheduler;

    CometDClientFactory(LoadOptions options) {
        if (options.sourceAddresses > 1) {
            throw new LoadRun.LoadFailure("--client cometd takes one source address");
        }
        this.options = options;
        this.scheduler = new ScheduledThreadPoolExecutor(2, runnable -> {
            Thread thread = new Thread(runnable, "cometd-client-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        this.http = new HttpClient();
        QueuedThreadPool threads = new QueuedThreadPool(Math.max(4, options.threads));
        threads.setName("cometd-client");
        threads.setDaemon(true);
        http.setExecutor(threads);
        int maxConnections = Math.max(1024, 4 * options.clients);
        http.setMaxConnectionsPerDestination(maxConnections);
        http.setMaxRequestsQueuedPerDestination(maxConnections);
        // Each CometD client keeps its cookies in its own store; a shared store would make them all one browser.
        http.setHttpCookieStore(new HttpCookieStore.Empty());
        this.webSockets = new JakartaWebSocketClientContainer(http);
        try {
            http.start();
            webSockets.start();
        } catch (Exception failure) {
            close();
            throw new LoadRun.LoadFailure("cannot start the CometD clients' HTTP and WebSocket clients: " + failure);
        }
    }

    @Override
    public LoadClient newClient(int index, String transport, LoadClient.Listener listener) {
        Map<String, Object> transportOptions = new HashMap<>();
        ClientTransport clientTransport = switch (transport) {
            case "long-polling" -> new JettyHttpClientTransport(transportOptions, http);
            case "websocket" -> {
                transportOptions.put("maxMessageSize", MAX_MESSAGE_BYTES);
                yield new WebSocketTransport(transportOptions, scheduler, webSockets);
            }
            default -> throw new IllegalArgumentException("no CometD transport " + transport);
        };
        return new CometDClient(index, new BayeuxClient(options.urlOf(index).toString(), scheduler, clientTransport), listener);
    }

    @Override
    public void close() {
        try {
            webSockets.stop();
            http.stop();
        } catch (Exception ignored) {
            // At the end of the run, or after a failed start: nothing to do about it.
        }
        scheduler.shutdownNow();
    }

    /** A CometD {@link BayeuxClient} behind the load run's interface. */
    private static final class CometDClient implements LoadClient {
        private final int index;
        private final BayeuxClient bayeux;
        private final Listener listener;

        CometDClient(int index, BayeuxClient bayeux, Listener listener) {
            this.index = index;
            this.bayeux = bayeux;
            this.listener = listener;
        }

        @Override
        public void start(String[] rooms, Runnable joined, Consumer<String> failed) {
            AtomicBoolean settled = new AtomicBoolean();
            Consumer<String> failOnce = why -> {
                if (settled.compareAndSet(false, true)) {
                    failed.accept(why);
                } else {
                    listener.error(index, why);
                }
            };
            ClientSessionChannel.MessageListener onDelivery = (channel, message) -> {
                Object data = message.getData();
                long seq = Payload.seq(data);
                long scheduled = Payload.scheduledNanos(data);
                if (seq < 0 || scheduled < 0) {
                    listener.error(index, "received a message that is not the load's on " + message.getChannel());
                } else {
                    listener.delivered(index, seq, scheduled);
                }
            };
            bayeux.handshake(reply -> {
                if (!reply.isSuccessful()) {
                    failOnce.accept("handshake failed: " + reply.get(Message.ERROR_FIELD));
                    return;
                }
                AtomicInteger count = new AtomicInteger();
                for (String room : rooms) {
                    bayeux.getChannel(room).subscribe(onDelivery, subscribed -> {
                        if (!subscribed.isSuccessful()) {
                            failOnce.accept("could not join " + room + ": " + subscribed.get(Message.ERROR_FIELD));
                        } else if (count.incrementAndGet() == rooms.length && settled.compareAndSet(false, true)) {
                            joined.run();
                        }
                    });
                }
            });
        }

        @Override
        public void publish(Publish[] batch, Payload payload) {
            bayeux.batch(() -> {
                for (Publish publish : batch) {
                    bayeux.getChannel(publish.channel()).publish(payload.data(publish.seq(), publish.scheduledNanos()),
                            reply -> {
                                if (!reply.isSuccessful()) {
                                    listener.refused(index, publish.seq(),
                                            String.valueOf(reply.get(Message.ERROR_FIELD)));
                                }
                            });
                }
            });
        }

        @Override
        public void askStats(boolean fullGc, Consumer<Map<String, Object>> answer) {
            // CometD prefixes the target with /service.
            String target = LoadRun.STATS_SERVICE.substring("/service".length());
            bayeux.remoteCall(target, Map.of("gc", fullGc), reply -> {
                if (reply.isSuccessful() && reply.getData() instanceof Map<?, ?> data) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> map = (Map<String, Object>) data;
                    answer.accept(map);
                } else {
                    LOG.info("No server statistics from {}: {}", LoadRun.STATS_SERVICE, reply.get(Message.ERROR_FIELD));
                    answer.accept(Map.of());
                }
            });
        }

        @Override
        public void disconnect(Runnable done) {
            AtomicBoolean once = new AtomicBoolean();
            bayeux.disconnect(reply -> {
                if (once.compareAndSet(false, true)) {
                    done.run();
                }
            });
        }
    }
}
