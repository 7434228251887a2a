package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import org.bayeux.transport.http.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code permessage-deflate} with {@code wsDeflateMinSizeBytes}: seen on the wire by a raw socket that offers the
 * extension and reads each frame's RSV1 bit (set on a compressed message, RFC 7692).
 */
class WebSocketDeflateTest {
    private static final int MINIMUM = 1024;
    private HttpTestServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void messagesUnderTheMinimumGoUncompressedAndLargerOnesCompressed() throws Exception {
        server = new HttpTestServer("jackson", engine -> { },
                transport -> transport.set(TransportConfig.WS_DEFLATE_MIN_SIZE, MINIMUM));
        try (Socket socket = new Socket("127.0.0.1", server.connector.getLocalPort())) {
            socket.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            String extensions = upgrade(in, out);
            assertThat(extensions).as("negotiated extensions").startsWith("permessage-deflate");
            Inflater inflater = new Inflater(true);

            sendText(out, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"websocket\"]}]");
            Frame handshake = readFrame(in);
            assertThat(handshake.compressed).as("a short handshake reply is not compressed").isFalse();
            String reply = handshake.text(inflater);
            assertThat(reply.length()).isLessThan(MINIMUM);
            String clientId = reply.replaceAll("(?s).*\"clientId\":\"([^\"]+)\".*", "$1");

            sendText(out, "[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId
                    + "\",\"subscription\":\"/deflate\"}]");
            assertThat(readFrame(in).compressed).as("a short subscribe reply is not compressed").isFalse();

            String large = "compress me ".repeat(400);
            sendText(out, "[{\"channel\":\"/deflate\",\"clientId\":\"" + clientId + "\",\"data\":\"" + large
                    + "\"}]");
            String delivery = null;
            for (int frames = 0; frames < 3 && delivery == null; frames++) {
                Frame frame = readFrame(in);
                String text = frame.text(inflater);
                if (text.contains(large)) {
                    assertThat(frame.compressed).as("a large delivery is compressed").isTrue();
                    assertThat(frame.payload.length).isLessThan(text.length() / 4);
                    delivery = text;
                } else {
                    assertThat(frame.compressed).as("the short publish reply is not compressed").isFalse();
                }
            }
            assertThat(delivery).as("the delivery, inflated").contains("\"channel\":\"/deflate\"");

            // A short message after a compressed one: the deflate context carries on for the next large one.
            sendText(out, "[{\"channel\":\"/deflate\",\"clientId\":\"" + clientId + "\",\"data\":\"" + large
                    + "!\"}]");
            boolean sawSecond = false;
            for (int frames = 0; frames < 3 && !sawSecond; frames++) {
                Frame frame = readFrame(in);
                sawSecond = frame.text(inflater).contains(large + "!");
            }
            assertThat(sawSecond).as("a second large delivery inflates with the carried-over context").isTrue();
        }
    }

    /** Upgrades, offering permessage-deflate; returns the extensions the server accepted. */
    private String upgrade(DataInputStream in, OutputStream out) throws IOException {
        byte[] key = new byte[16];
        ThreadLocalRandom.current().nextBytes(key);
        String request = "GET /bayeux HTTP/1.1\r\n"
                + "Host: 127.0.0.1:" + server.connector.getLocalPort() + "\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String status = readLine(in);
        assertThat(status).startsWith("HTTP/1.1 101");
        String extensions = "";
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            if (line.toLowerCase().startsWith("sec-websocket-extensions:")) {
                extensions = line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return extensions;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("Connection closed in the upgrade response");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    /** Sends one uncompressed, masked, final text frame. */
    private static void sendText(OutputStream out, String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write(0x81);
        if (payload.length < 126) {
            frame.write(0x80 | payload.length);
        } else {
            frame.write(0x80 | 126);
            frame.write(payload.length >>> 8);
            frame.write(payload.length & 0xFF);
        }
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        frame.write(mask);
        for (int i = 0; i < payload.length; i++) {
            frame.write(payload[i] ^ mask[i % 4]);
        }
        out.write(frame.toByteArray());
        out.flush();
    }

    private static Frame readFrame(DataInputStream in) throws IOException {
        int first = in.readUnsignedByte();
        assertThat(first & 0x80).as("a final frame").isNotZero();
        assertThat(first & 0x0F).as("a text frame").isEqualTo(1);
        int second = in.readUnsignedByte();
        long length = second & 0x7F;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        assertThat(length).as("a frame small enough for the test").isLessThan(1 << 20);
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        return new Frame((first & 0x40) != 0, payload);
    }

    /** A received frame: whether RSV1 marked it compressed, and its payload as sent. */
    private record Frame(boolean compressed, byte[] payload) {
        String text(Inflater inflater) throws DataFormatException {
            if (!compressed) {
                return new String(payload, StandardCharsets.UTF_8);
            }
            // RFC 7692: the sender removed the final empty block's 00 00 FF FF; put it back before inflating.
            byte[] input = new byte[payload.length + 4];
            System.arraycopy(payload, 0, input, 0, payload.length);
            input[payload.length + 2] = (byte) 0xFF;
            input[payload.length + 3] = (byte) 0xFF;
            inflater.setInput(input);
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = inflater.inflate(buffer); n > 0; n = inflater.inflate(buffer)) {
                text.write(buffer, 0, n);
            }
            return text.toString(StandardCharsets.UTF_8);
        }
    }
}
