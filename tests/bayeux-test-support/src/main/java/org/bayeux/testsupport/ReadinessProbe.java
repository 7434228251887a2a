package org.bayeux.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One HTTP readiness check, as a load balancer makes it: {@code GET path} on a fresh connection, ready only on a
 * {@code 200} status within the timeout. A refused connection, a node that accepts but does not answer (stopped, or
 * too busy) and any other status all count as not ready.
 */
final class ReadinessProbe {
    /** A status line is far shorter; a node that sends more before its first line end is not a healthy one. */
    private static final int MAX_STATUS_LINE = 256;

    private final InetAddress host;
    private final String path;
    private final int timeoutMillis;

    /**
     * @param host the nodes' address
     * @param path the readiness path, such as {@code /health/ready}
     * @param timeout bounds the connect and each read
     */
    ReadinessProbe(InetAddress host, String path, Duration timeout) {
        this.host = host;
        this.path = path;
        this.timeoutMillis = Math.toIntExact(timeout.toMillis());
    }

    /**
     * @param port the node's port
     * @return true if the node answered 200 within the timeout
     */
    boolean isReady(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host.getHostAddress() + ":" + port
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String[] statusLine = statusLine(socket.getInputStream()).split(" ");
            return statusLine.length >= 2 && statusLine[0].startsWith("HTTP/") && "200".equals(statusLine[1]);
        } catch (IOException notReady) {
            return false;
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n' && line.length() < MAX_STATUS_LINE; b = in.read()) {
            line.append((char) b);
        }
        return line.toString().trim();
    }
}
