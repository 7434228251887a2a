package org.bayeux.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A TCP relay on the loopback interface that passes every byte on unchanged and keeps a copy of what went each way:
 * what someone who can read a plain-text link between two nodes sees (cookies, session ids, payloads), for tests of
 * what such a reader can and cannot do with it. The copy is bounded ({@value #MAX_RECORDED_BYTES} bytes each way);
 * past it, bytes are still relayed but no longer recorded.
 */
public final class RecordingRelay extends LoopbackRelay {
    /** The most bytes kept of each direction. */
    public static final int MAX_RECORDED_BYTES = 8 * 1024 * 1024;

    private final ByteArrayOutputStream toServer = new ByteArrayOutputStream();
    private final ByteArrayOutputStream toClient = new ByteArrayOutputStream();

    /**
     * @param targetPort the server's port on 127.0.0.1
     * @throws IOException if no port can be bound
     */
    public RecordingRelay(int targetPort) throws IOException {
        super(targetPort, "recording-relay");
        start();
    }

    /** @return what the clients sent so far, as ISO-8859-1 text (every byte one char) */
    public String clientBytes() {
        synchronized (toServer) {
            return toServer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** @return what the server answered so far, as ISO-8859-1 text (every byte one char) */
    public String serverBytes() {
        synchronized (toClient) {
            return toClient.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Override
    void clientToServer(Socket client, Socket server) {
        relay(client, server, toServer);
    }

    @Override
    void serverToClient(Socket server, Socket client) {
        relay(server, client, toClient);
    }

    private void relay(Socket from, Socket to, ByteArrayOutputStream copy) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                synchronized (copy) {
                    if (copy.size() + read <= MAX_RECORDED_BYTES) {
                        copy.write(buffer, 0, read);
                    }
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException ended) {
            // Either side closed, or the relay is closing.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }
}
