package org.bayeux.interop;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/**
 * The variants every interop scenario runs over, and helpers shared by the tests.
 */
final class Interop {
    /** The transports every client is made to use, each scenario running over each. */
    static final List<String> TRANSPORTS = List.of("long-polling", "websocket");
    /** The server's JSON codecs. */
    static final List<String> CODECS = List.of("jackson", "jetty");
    /** The clients that run in Node.js. */
    static final List<String> NODE_CLIENTS = List.of("cometd-js", "faye");
    /** Every client: the CometD Java client runs in the test's own JVM. */
    static final List<String> CLIENTS = List.of(CometDJavaClient.NAME, "cometd-js", "faye");
    /** The size of the large-message scenarios, in characters (ASCII, so also in bytes). */
    static final int LARGE = 100 * 1024;

    private Interop() {
    }

    /** @return every (codec, transport) pair */
    static Stream<Arguments> codecsAndTransports() {
        return CODECS.stream().flatMap(codec -> TRANSPORTS.stream().map(transport -> Arguments.of(codec, transport)));
    }

    /** @return every (Node.js client, codec, transport) triple */
    static Stream<Arguments> nodeClients() {
        return NODE_CLIENTS.stream().flatMap(client -> CODECS.stream().flatMap(codec -> TRANSPORTS.stream()
                .map(transport -> Arguments.of(client, codec, transport))));
    }

    /**
     * The same text as node/lib/common.mjs's blob(): "abc…z" repeated.
     *
     * @param length the length
     * @return the text
     */
    static String blob(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + i % 26));
        }
        return text.toString();
    }

    /**
     * What node/lib/common.mjs's summarize() makes of a long string.
     *
     * @param text a string over 256 characters
     * @return "sha256:&lt;hex&gt;:&lt;length&gt;"
     */
    static String summary(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(hash) + ":" + text.length();
        } catch (NoSuchAlgorithmException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
