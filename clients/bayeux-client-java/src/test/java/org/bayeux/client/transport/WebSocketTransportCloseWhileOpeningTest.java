package org.bayeux.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.client.ClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jetty starts reading a WebSocket before it completes the upgrade's future, so a socket cut right after its upgrade
 * can report its close before the transport hears that it opened. That order is played here by hand, on a socket
 * whose upgrade never gets an answer (a server that never accepts): the close must fail what waits for the socket at
 * once, and the late "opened" must not make the dead socket the one later batches are written to (they would wait
 * for replies that never come, up to their timeout, again and again: the stall seen in {@code OortProcessFlapTest}).
 */
class WebSocketTransportCloseWhileOpeningTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    private final List<List<Message.Mutable>> failed = new CopyOnWriteArrayList<>();
    private ServerSocket silent;
    private ClientResources resources;
    private WebSocketTransport transport;

    @BeforeEach
    void start() throws IOException {
        // Connections complete in the backlog and are never accepted: the upgrade waits for its answer.
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        resources = ClientResources.builder().maxThreads(4).build();
        URI url = URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/bayeux");
        TransportContext context = new TransportContext(url, resources, resources.codec("jackson"),
                new ClientCookies(), Map::of, 64 * 1024, new TransportListener() {
                    @Override
                    public void onMessages(ClientTransport t, List<Message.Mutable> messages) {
                    }

                    @Override
                    public void onFailure(ClientTransport t, List<Message.Mutable> unanswered, Throwable cause) {
                        failed.add(unanswered);
                    }
                });
        transport = new WebSocketTransport(context);
    }

    @AfterEach
    void stop() throws Exception {
        transport.close(new IOException("test over"));
        resources.close();
        silent.close();
    }

    private static Message.Mutable connect(String id) {
        MapMessage message = MapMessage.on(Message.META_CONNECT);
        message.setId(id);
        return message;
    }

    @Test
    void aSocketClosedBeforeItsUpgradeCompletedIsNeverUsed() {
        transport.send(List.of(connect("1")), LONG);
        ClientSocket first = transport.openingSocket();
        assertThat(first).isNotNull();

        transport.closed(first, new IOException("WebSocket closed: 1006"));
        assertThat(failed).hasSize(1);
        assertThat(failed.get(0)).extracting(Message::getId).containsExactly("1");
        assertThat(transport.openingSocket()).isNull();

        // The upgrade's future completes only now.
        transport.opened(first);
        transport.send(List.of(connect("2")), LONG);
        ClientSocket second = transport.openingSocket();
        assertThat(second).as("the next batch opens a new socket").isNotNull().isNotSameAs(first);
        assertThat(failed).hasSize(1);
    }
}
