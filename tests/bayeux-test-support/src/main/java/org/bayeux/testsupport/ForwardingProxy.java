package org.bayeux.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Stands in for a reverse proxy that terminates TLS in front of the server: it listens on the loopback interface
 * and passes each HTTP/1.1 request on to the server with the headers such a proxy adds
 * ({@code X-Forwarded-Proto}, {@code X-Forwarded-Host}, {@code X-Forwarded-For}), replacing any the client sent, as a
 * proxy must. Requests with a {@code Content-Length} body follow one another on a connection; after a WebSocket
 * upgrade (or a chunked body) the rest of the connection is relayed as it is. Responses are relayed unchanged.
 */
public final class ForwardingProxy extends LoopbackRelay {
    private static final int MAX_HEAD_BYTES = 64 * 1024;
    /** Bounds the requests relayed on one connection, so that every loop here ends. */
    private static final int MAX_REQUESTS_PER_CONNECTION = 10_000;

    private final String proto;
    private final String host;

    /**
     * @param targetPort the server's port on 127.0.0.1
     * @param proto the scheme the clients used, for {@code X-Forwarded-Proto}, e.g. {@code https}
     * @param host the host the clients asked for, for {@code X-Forwarded-Host}, e.g. {@code chat.example.com}
     * @throws IOException if no port can be bound
     */
    public ForwardingProxy(int targetPort, String proto, String host) throws IOException {
        super(targetPort, "forwarding-proxy");
        this.proto = proto;
        this.host = host;
        start();
    }

    @Override
    void serverToClient(Socket server, Socket client) {
        relay(server, client);
    }

    @Override
    void clientToServer(Socket client, Socket server) {
        try {
            InputStream in = client.getInputStream();
            OutputStream out = server.getOutputStream();
            for (int requests = 0; requests < MAX_REQUESTS_PER_CONNECTION; requests++) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                out.write(withForwardedHeaders(head, client.getInetAddress().getHostAddress())
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                String lower = head.toLowerCase(Locale.ROOT);
                if (lower.contains("\r\nupgrade:") || lower.contains("\r\ntransfer-encoding:")) {
                    copy(in, out, Long.MAX_VALUE);
                    return;
                }
                copy(in, out, contentLength(lower));
            }
        } catch (IOException ended) {
            // Either side closed, or the proxy is closing.
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private String withForwardedHeaders(String head, String clientAddress) {
        StringBuilder forwarded = new StringBuilder();
        String[] lines = head.split("\r\n");
        for (String line : lines) {
            String name = line.contains(":") ? line.substring(0, line.indexOf(':')).trim().toLowerCase(Locale.ROOT) : "";
            if (name.startsWith("x-forwarded-") || name.equals("forwarded")) {
                continue; // a client may not choose what the proxy vouches for
            }
            forwarded.append(line).append("\r\n");
        }
        forwarded.append("X-Forwarded-Proto: ").append(proto).append("\r\n")
                .append("X-Forwarded-Host: ").append(host).append("\r\n")
                .append("X-Forwarded-For: ").append(clientAddress).append("\r\n\r\n");
        return forwarded.toString();
    }

    private static long contentLength(String lowerCaseHead) {
        for (String line : lowerCaseHead.split("\r\n")) {
            if (line.startsWith("content-length:")) {
                return Long.parseLong(line.substring("content-length:".length()).trim());
            }
        }
        return 0;
    }

    /** @return the request line and headers without the blank line, or null at the end of the connection */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (head.size() < MAX_HEAD_BYTES) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1
                    : b == '\r' ? 1 : 0;
            if (matched == 4) {
                String text = head.toString(StandardCharsets.ISO_8859_1);
                return text.substring(0, text.length() - 4);
            }
        }
        throw new IOException("Request head over " + MAX_HEAD_BYTES + " bytes");
    }

    private static void copy(InputStream in, OutputStream out, long bytes) throws IOException {
        byte[] buffer = new byte[16 * 1024];
        long left = bytes;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new IOException("Connection ended");
            }
            out.write(buffer, 0, read);
            out.flush();
            left -= read;
        }
    }

    private void relay(Socket from, Socket to) {
        try {
            copy(from.getInputStream(), to.getOutputStream(), Long.MAX_VALUE);
        } catch (IOException ended) {
            // Either side closed, or the proxy is closing.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }
}
