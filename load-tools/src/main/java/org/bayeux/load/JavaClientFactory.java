package org.bayeux.load;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

import org.bayeux.api.client.ClientSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;

/**
 * The simulated clients are our Java client: they share one {@link ClientResources} per source address (thread
 * pool, scheduler, HTTP and WebSocket clients), so that no client has a thread of its own. With several source
 * addresses, client {@code i} connects from {@code 127.0.0.(1 + i mod n)}: each address has its own ephemeral ports.
 */
final class JavaClientFactory implements ClientFactory {
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
    public ClientSession newClient(int index, String transport) {
        BayeuxClientConfig config = BayeuxClientConfig.builder(options.url.toString())
                .transports(transport)
                .maxPendingMessages(options.maxPending)
                .build();
        return new BayeuxClient(config, resources[index % resources.length]);
    }

    @Override
    public void close() {
        for (ClientResources shared : resources) {
            if (shared != null) {
                shared.close();
            }
        }
    }
}
