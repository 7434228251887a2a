package org.bayeux.server.ext;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;

/**
 * What an ack-aware client puts on the wire and reads from it, for the tests of this package.
 */
final class AckWire {
    static final String ACK_HANDSHAKE_EXT = ",\"ext\":{\"ack\":true}";

    private AckWire() {
    }

    /**
     * @param client the client
     * @param ack the {@code ext.ack} to send
     * @return a connect batch acknowledging {@code ack}, without advice (so the server may hold it)
     */
    static String connect(TestClient client, long ack) {
        return "[" + client.connectMessage(",\"ext\":{\"ack\":" + ack + "}") + "]";
    }

    /**
     * @param client the client
     * @param ack the {@code ext.ack} to send
     * @return the first connect after a handshake, with {@code advice.timeout:0}, as CometD clients send it
     */
    static String firstConnect(TestClient client, long ack) {
        return "[" + client.connectMessage(",\"advice\":{\"timeout\":0},\"ext\":{\"ack\":" + ack + "}") + "]";
    }

    /**
     * @param response a response that must end with a successful connect reply
     * @return the {@code ext.ack} of that reply
     */
    static long ackOf(TestResponse response) {
        Map<String, Object> reply = connectReplyOf(response);
        @SuppressWarnings("unchecked")
        Map<String, Object> ext = (Map<String, Object>) reply.get("ext");
        assertThat(ext).as("ext of %s", response).isNotNull();
        assertThat(ext.get("ack")).as("ext.ack of %s", response).isInstanceOf(Number.class);
        return ((Number) ext.get("ack")).longValue();
    }

    /**
     * Checks the shape the ack extension promises: deliveries first, the connect reply last and alone of its kind.
     *
     * @param response the response to a connect
     * @return the connect reply
     */
    static Map<String, Object> connectReplyOf(TestResponse response) {
        List<Map<String, Object>> messages = response.messages();
        assertThat(messages).as("response %s", response).isNotEmpty();
        Map<String, Object> last = messages.get(messages.size() - 1);
        assertThat(last.get("channel")).as("last message of %s", response).isEqualTo("/meta/connect");
        assertThat(last.get("successful")).as("connect reply of %s", response).isEqualTo(Boolean.TRUE);
        assertThat(response.deliveries()).as("deliveries of %s", response).hasSize(messages.size() - 1);
        return last;
    }

    /**
     * @param response a response
     * @return the {@code data.text} of each delivery, in order
     */
    static List<Object> textsOf(TestResponse response) {
        return response.deliveries().stream().map(AckWire::textOf).collect(Collectors.toList());
    }

    @SuppressWarnings("unchecked")
    static Object textOf(Map<String, Object> delivery) {
        return ((Map<String, Object>) delivery.get("data")).get("text");
    }

    /**
     * @param future a response that should come
     * @return it, within {@link TestClient#WAIT}
     */
    static TestResponse await(CompletableFuture<TestResponse> future) {
        try {
            return future.get(TestClient.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception failure) {
            throw new AssertionError("No response within " + TestClient.WAIT, failure);
        }
    }
}
