package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;

/** Our Java client on {@code /chat/room} of a standalone server, for the tests of clustered servers. */
final class ChatRoomClients {
    static final String ROOM = "/chat/room";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private ChatRoomClients() {
    }

    /**
     * @param server a started server
     * @param transport the one transport to use
     * @return a client connected to the server's endpoint
     */
    static BayeuxClient connect(StandaloneServer server, String transport) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(
                "http://127.0.0.1:" + server.getPort() + "/bayeux").transports(transport).build());
        assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
        return client;
    }

    /** @return what the client receives on the room from now on, data only, once the subscription succeeded */
    static BlockingQueue<Object> subscribe(BayeuxClient client) throws Exception {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        assertThat(client.getChannel(ROOM).subscribeAsync((c, m) -> received.add(m.getData()))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
        return received;
    }

    /** Publishes to the room and checks that the server accepted it. */
    static void publish(BayeuxClient client, Object data) throws Exception {
        assertThat(client.getChannel(ROOM).publishAsync(data)
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
    }
}
