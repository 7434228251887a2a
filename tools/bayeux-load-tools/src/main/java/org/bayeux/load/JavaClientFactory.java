package org.bayeux.load;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --client ours}: the simulated clients are our Java client: they share one {@link ClientResources} per source
 * address (thread pool, scheduler, HTTP and WebSocket clients), so that no client has a thread of its own. With
 * several source addresses, client {@code i} connects from {@code 127.0.0.(1 + i mod n)}: each address has its own
 * ephemeral ports.
 */
final class JavaClientFactory implements ClientFactory {
    private static final Logger LOG = LoggerFactory.getLogger(JavaClientFactory.class);
    private final LoadOptions options;
    private final ClientResources[] resources;

    JavaClientFactory(LoadOptions options) {
        this.options = options;
        this.resources = new ClientResources[options.sourceAddresses];
        try {
            for (int i = 0; i < resources.length; i++) {
                ClientResources.Builder builder = ClientResources.builder()
                        .maxThreads(Math.max(4, options.threads / resources.length))
                        .maxConnectionsPerServer(Math.max(1024, 4 * options.clients))
                        .idleTimeout(Duration.ofMinutes(2));
                if (resources.length > 1) {
                    builder.bindAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (i + 1)}));
                }
                resources[i] = builder.build();
            }
        } catch (UnknownHostException | RuntimeException failure) {
            close();
            throw new LoadRun.LoadFailure("cannot start the clients' shared resources: " + failure.getMessage());
        }
    }

    @Override
    public LoadClient newClient(int index, String transport, LoadClient.Listener listener) {
        BayeuxClientConfig config = BayeuxClientConfig.builder(options.urlOf(index).toString())
                .transports(transport)
                .maxPendingMessages(options.maxPending)
                .build();
        return new OurClient(index, new BayeuxClient(config, resources[index % resources.length]), listener);
    }

    @Override
    public void close() {
        for (ClientResources shared : resources) {
            if (shared != null) {
                shared.close();
            }
        }
    }

    /** Our client's {@link ClientSession} behind the load run's interface. */
    private static final class OurClient implements LoadClient {
        private final int index;
        private final ClientSession session;
        private final Listener listener;

        OurClient(int index, ClientSession session, Listener listener) {
            this.index = index;
            this.session = session;
            this.listener = listener;
        }

        @Override
        public void start(String[] rooms, Runnable joined, Consumer<String> failed) {
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
            session.handshake(null, (channel, reply) -> {
                if (!reply.isSuccessful()) {
                    failed.accept("handshake failed: " + why(reply));
                    return;
                }
                AtomicInteger count = new AtomicInteger();
                for (String room : rooms) {
                    session.getChannel(room).subscribe(onDelivery, (subscribe, subscribed) -> {
                        if (!subscribed.isSuccessful()) {
                            failed.accept("could not join " + room + ": " + why(subscribed));
                        } else if (count.incrementAndGet() == rooms.length) {
                            joined.run();
                        }
                    });
                }
            });
        }

        @Override
        public void publish(Publish[] batch, Payload payload) {
            session.batch(() -> {
                for (Publish publish : batch) {
                    session.getChannel(publish.channel())
                            .publish(payload.data(publish.seq(), publish.scheduledNanos()), (channel, reply) -> {
                                if (!reply.isSuccessful()) {
                                    listener.refused(index, publish.seq(), why(reply));
                                }
                            });
                }
            });
        }

        @Override
        public void askStats(boolean fullGc, Consumer<Map<String, Object>> answer) {
            session.remoteCall(LoadRun.STATS_SERVICE, Map.of("gc", fullGc), (channel, reply) -> {
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
            session.disconnect((channel, reply) -> done.run());
        }

        /** @return a failed reply's error, and the cause a client adds to the replies it makes up itself */
        private static String why(Message reply) {
            Object cause = reply.get("failure");
            return reply.get(Message.ERROR_FIELD) + (cause == null ? "" : " (" + cause + ")");
        }
    }
}
