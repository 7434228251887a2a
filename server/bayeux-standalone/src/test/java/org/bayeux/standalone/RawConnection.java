package org.bayeux.standalone;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A plain TCP connection that writes what a test says, byte by byte if need be, and reads what comes back. */
final class RawConnection implements AutoCloseable {
    final Socket socket = new Socket();

    RawConnection(int port) throws IOException {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    }

    void write(String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /**
     * Reads until the server closes the connection (or resets it), at most the given time.
     *
     * @return true if the server closed it, false if still open when the time ran out
     */
    boolean awaitClosedByServer(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            // Bounded: each read waits at most timeoutMs, and a server that answers is done within a few reads.
            for (int reads = 0; reads < 1000; reads++) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
            return false;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    /**
     * @return the response head (status line and headers), or null if none came within the time
     */
    String readHead(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        try {
            for (int i = 0; i < 64 * 1024; i++) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
                String text = head.toString(StandardCharsets.ISO_8859_1);
                if (text.endsWith("\r\n\r\n")) {
                    return text;
                }
            }
        } catch (SocketTimeoutException nothingYet) {
            return null;
        }
        return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Sends one masked WebSocket text frame, as a client must. */
    void writeTextFrame(String text) throws IOException {
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
        byte[] mask = {0x11, 0x22, 0x33, 0x44};
        frame.write(mask);
        for (int i = 0; i < payload.length; i++) {
            frame.write(payload[i] ^ mask[i % 4]);
        }
        socket.getOutputStream().write(frame.toByteArray());
        socket.getOutputStream().flush();
    }

    /** @return the payload of the next (unmasked, unfragmented, uncompressed) frame from the server */
    String readTextFrame(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
        in.readUnsignedByte();
        int length = in.readUnsignedByte() & 0x7F;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            throw new IOException("Frame too long for a test");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
