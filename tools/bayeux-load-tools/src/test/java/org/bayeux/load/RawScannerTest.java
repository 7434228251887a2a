package org.bayeux.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The raw client's scanner finds a delivery's {@code id} and {@code t} wherever they are in the message, and only
 * there: everything else is handed over whole, to be parsed fully.
 */
class RawScannerTest {
    private final List<String> found = new ArrayList<>();

    private List<String> scan(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        // Scanned in the middle of a larger buffer, as in a frame of Jetty's.
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 8);
        buffer.position(4);
        buffer.put(bytes);
        buffer.position(4).limit(4 + bytes.length);
        RawScanner.scan(buffer, new RawScanner.Sink() {
            @Override
            public void delivery(long seq, long scheduledNanos) {
                found.add("delivery " + seq + " " + scheduledNanos);
            }

            @Override
            public void other(ByteBuffer json, int start, int end) {
                byte[] message = new byte[end - start];
                json.get(start, message);
                found.add("other " + new String(message, StandardCharsets.UTF_8));
            }
        });
        assertThat(buffer.position()).as("position unchanged").isEqualTo(4);
        return found;
    }

    @Test
    void findsDeliveriesAmongRepliesInAnyFieldOrder() {
        assertThat(scan("[{\"channel\":\"/load/room/1\",\"data\":{\"id\":7,\"t\":123456789012,\"p\":\"xx\"}},"
                + " {\"data\" : {\"p\":\"x\", \"t\" : 5, \"id\" : 8}, \"channel\" : \"/load/room/2\", \"id\":\"9\"},"
                + "{\"channel\":\"/meta/connect\",\"successful\":true,\"advice\":{\"timeout\":0}}]"))
                .containsExactly("delivery 7 123456789012", "delivery 8 5",
                        "other {\"channel\":\"/meta/connect\",\"successful\":true,\"advice\":{\"timeout\":0}}");
    }

    @Test
    void aSingleObjectAndAnEmptyArrayAreMessagesToo() {
        assertThat(scan("{\"channel\":\"/load/room/0\",\"data\":{\"id\":1,\"t\":2}}")).containsExactly("delivery 1 2");
        found.clear();
        assertThat(scan(" [ ] ")).isEmpty();
    }

    @Test
    void textThatLooksLikeTheFieldsIsNotMistakenForThem() {
        assertThat(scan("[{\"channel\":\"/load/room/1\",\"data\":{\"p\":\"\\\"id\\\":1,\\\"t\\\":2\",\"id\":3,"
                + "\"nested\":{\"t\":99,\"list\":[1,{\"id\":4}]},\"t\":4}}]")).containsExactly("delivery 3 4");
    }

    @Test
    void messagesThatAreNotLoadDeliveriesAreHandedOverWhole() {
        assertThat(scan("[{\"channel\":\"/service/load/stats\",\"data\":{\"id\":1,\"t\":2}},"
                + "{\"channel\":\"/load/room/1\",\"data\":{\"id\":-1,\"t\":2}},"
                + "{\"channel\":\"/load/room/1\",\"data\":{\"id\":\"1\",\"t\":2}},"
                + "{\"channel\":\"/load/room/1\",\"data\":[1,2]}]"))
                .hasSize(4).allSatisfy(message -> assertThat(message).startsWith("other "));
    }

    @Test
    void malformedJsonIsRefused() {
        for (String bad : List.of("", "[", "[{\"channel\":\"/a\"", "[{\"channel\" \"/a\"}]", "[1]", "{}x",
                "[{\"channel\":\"/a\",\"data\":{\"id\":1,\"t\":\"2}}]")) {
            found.clear();
            assertThatThrownBy(() -> scan(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
