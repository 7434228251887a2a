package org.bayeux.transport.jetty;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.function.Consumer;

import org.bayeux.transport.websocket.SocketCarrier;
import org.bayeux.transport.websocket.SocketPeer;
import org.bayeux.websocket.text.TextFrameHandler;
import org.bayeux.websocket.text.TextMessageAssembler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.exception.MessageTooLargeException;

/**
 * Adapts one connection of Jetty's core WebSocket to a {@link SocketCarrier}: whole texts in, texts and closes out.
 *
 * <p>Why the core API rather than Jetty's endpoint API: an endpoint session keeps the upgrade request (with its
 * HTTP connection, parser and headers) and a set of method handles for as long as the socket is open, a few
 * kilobytes per idle client, and the JVM specialises those handles per connection after 127 calls, spinning one class
 * for each (see {@link TextMessageAssembler}). Here a connection holds only what it needs: the core session and the
 * text being received.</p>
 *
 * <p>The frame after a whole message is read only once the carrier has processed the message. A message longer
 * than {@code maxMessageBytes} and a binary message go to the carrier, which closes the socket.</p>
 */
final class JettySocket extends TextFrameHandler implements SocketPeer {
    private final SocketCarrier carrier;
    private final Set<JettySocket> open;

    /**
     * @param carrier the carrier of this connection
     * @param maxMessageBytes the largest incoming text message, in bytes
     * @param open the open sockets of the transport: this one is in it from its opening to its closing
     */
    JettySocket(SocketCarrier carrier, int maxMessageBytes, Set<JettySocket> open) {
        super(maxMessageBytes);
        this.carrier = carrier;
        this.open = open;
    }

    // ---- TextFrameHandler ------------------------------------------------------------------------------------

    @Override
    protected void opened() {
        open.add(this);
        carrier.opened(this);
    }

    @Override
    protected void onText(String text) {
        carrier.onText(text).thenAccept(readMore -> {
            if (readMore) {
                demand();
            }
        });
    }

    @Override
    protected void onBinary() {
        carrier.onBinary();
    }

    @Override
    protected void onTooBig(MessageTooLargeException tooBig) {
        carrier.onTooBig();
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        carrier.onError(cause);
        callback.succeeded();
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        carrier.onClosed(closeStatus.getCode(), closeStatus.getReason());
        open.remove(this);
        callback.succeeded();
    }

    /** @return Jetty's session of this connection, or null before it opened; for tests of this package */
    CoreSession coreSession() {
        return session();
    }

    // ---- SocketPeer ------------------------------------------------------------------------------------------

    @Override
    public void sendText(String text, Consumer<Throwable> done) {
        session().sendFrame(new Frame(OpCode.TEXT, text), new Completion(done), false);
    }

    /**
     * Sends the bytes as they are. They may be shared with other sockets (a broadcast sent alone is one array for
     * all), so each send gets a buffer of its own over them (its own position and limit) that is read-only: Jetty,
     * its extensions (permessage-deflate reads the payload) and the network only read it.
     */
    @Override
    public void sendText(byte[] utf8, Consumer<Throwable> done) {
        session().sendFrame(new Frame(OpCode.TEXT, ByteBuffer.wrap(utf8).asReadOnlyBuffer()), new Completion(done),
                false);
    }

    /**
     * Tells a send's outcome to its consumer: one small object per frame (sent to every recipient of a fan-out),
     * where {@code Callback.from} would make three.
     */
    private record Completion(Consumer<Throwable> done) implements Callback {
        @Override
        public void succeeded() {
            done.accept(null);
        }

        @Override
        public void failed(Throwable failure) {
            done.accept(failure);
        }
    }
}
