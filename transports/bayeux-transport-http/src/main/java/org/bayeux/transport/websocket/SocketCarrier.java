package org.bayeux.transport.websocket;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.bayeux.api.server.ServerSession;
import org.bayeux.server.transport.BadBatchException;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.FlowControl;
import org.bayeux.server.transport.IncomingBatch;
import org.bayeux.server.transport.OutgoingMessages;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.server.internal.RateLimitedLog;
import org.bayeux.transport.http.CookieBinding;
import org.bayeux.transport.http.SessionBinding;
import org.bayeux.transport.http.SessionLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection, whatever server API carries it: the {@link Carrier} through which the engine answers and
 * pushes, fed by a server adapter that reports the socket's events ({@link #opened(SocketPeer)},
 * {@link #onText(String)}, {@link #onBinary()}, {@link #onError(Throwable)}, {@link #onClosed(int, String)}).
 *
 * <p>Each text message is one JSON batch. The adapter reads the next message only once the stage returned by
 * {@link #onText(String)} completes, so a client's batches are handled in order and a client that floods the socket
 * is slowed down by TCP. Every {@link #send(OutgoingMessages)} becomes one text message, or several when a list of plain
 * deliveries exceeds the frame size ({@link TextFrames}); writes are queued and sent one at a time
 * ({@link TextWriteQueue}). The engine's pushes of queued deliveries run on the carrier's lane ({@link PushLanes}),
 * so that deliveries queued meanwhile share a frame, and wait while the socket is a frame behind, so that a slow
 * reader's messages stay in its session's queue, bounded by {@code maxQueueBytes} and its policy.</p>
 *
 * <p>A peer is dropped when its unwritten bytes reach {@code maxQueueBytes} (it sends without reading its
 * answers), or when it accepts no bytes for {@code wsWriteStallTimeout} while some wait: a check on the engine's
 * timer thread, armed while the socket has a backlog, so a socket costs no timer while it keeps up.</p>
 *
 * <p>However the connection ends (close frame, error, idle timeout, failed write, a close of our own), the carrier
 * ends once: pending writes are dropped and the engine is told, for each session the carrier ever carried, through
 * {@link TransportEngine#carrierFailed(ServerSession, Carrier)}, so that held connects are released and expiry
 * starts. That call is handed to the transport's executor: the engine may be calling {@link #send(OutgoingMessages)} under a
 * session's lock on the thread where the failure is noticed.</p>
 */
public final class SocketCarrier implements Carrier, FlowControl {
    /** Close code for an unparseable batch or a failure while handling one. */
    public static final int CLOSE_SERVER_ERROR = 1011;
    /** Close code for a binary message. */
    public static final int CLOSE_BAD_DATA = 1003;
    /** Close code for a message over {@code maxMessageSizeBytes}. */
    public static final int CLOSE_TOO_BIG = 1009;
    /** Close code for a socket that carried no session within {@code wsHandshakeTimeout}. */
    public static final int CLOSE_POLICY = 1008;

    private static final Logger LOG = LoggerFactory.getLogger(SocketCarrier.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);
    /** A close frame holds at most 125 bytes, 2 of them the code; stay well below. */
    private static final int MAX_REASON_LENGTH = 100;
    /** Sets {@link #stallCheckArmed}: one int in each carrier rather than an AtomicBoolean object. */
    private static final AtomicIntegerFieldUpdater<SocketCarrier> STALL_CHECK_ARMED =
            AtomicIntegerFieldUpdater.newUpdater(SocketCarrier.class, "stallCheckArmed");

    private final SocketTransport transport;
    private final TransportEngine engine;
    // Guarded by this.
    /** Replaced, never changed: usually one session, which an immutable list holds in a few bytes. */
    private List<ServerSession> attached = List.of();
    private boolean ended;
    private boolean opened;
    // Set once a session was attached: a successful handshake or connect on this socket.
    private boolean carriedSession;
    /** The pending {@code wsHandshakeTimeout} check, cancelled once a session is attached or the socket ends. */
    private ScheduledFuture<?> handshakeCheck;
    private volatile SocketPeer peer;
    private volatile TextWriteQueue writes;
    /** 1 while a write-stall check is scheduled, or about to be ({@link #STALL_CHECK_ARMED}). */
    private volatile int stallCheckArmed;
    /** The browser cookie of the upgrade request, when it may vouch for sessions (see {@link #setBrowserId}). */
    private volatile String browserId;
    /** The upgrade came without a cookie and its response set {@link #browserId}: it proves nothing yet. */
    private volatile boolean browserIdGiven;
    private volatile String remoteAddress;
    /** The admission of the handshake being handled, if any; see {@link #onText(String)}. */
    private volatile SessionLimits.Admission pendingAdmission;

    SocketCarrier(SocketTransport transport) {
        this.transport = transport;
        this.engine = transport.engine();
    }

    // ---- Carrier ---------------------------------------------------------------------------------------------

    @Override
    public CarrierCapabilities capabilities() {
        return transport.capabilities();
    }

    /** @return this socket's pacing: pushes on its lane, deferred while its write backlog is a frame behind */
    @Override
    public FlowControl flowControl() {
        return this;
    }

    @Override
    public void executePush(Runnable push) {
        transport.executePush(this, push);
    }

    @Override
    public void send(OutgoingMessages messages) {
        TextWriteQueue current = writes;
        if (current == null || messages.size() == 0) {
            return;
        }
        if (!current.write(TextFrames.of(messages, transport.maxOutgoingFrameBytes()))) {
            // A peer that does not read would not read a close frame either.
            LOG.info("{} has {} bytes waiting to be written; dropping it as too slow", this, current.pendingBytes());
            transport.slowPeerDropped();
            peer.abort();
            end();
            return;
        }
        if (current.pendingBytes() > 0) {
            watchForStall();
        }
    }

    @Override
    public long pendingBytes() {
        TextWriteQueue current = writes;
        return current == null ? 0 : current.pendingBytes();
    }

    @Override
    public boolean deferPush(Runnable resume) {
        TextWriteQueue current = writes;
        return current != null && current.deferUntilWritable(resume);
    }

    @Override
    public boolean mayCarry(ServerSession session) {
        synchronized (this) {
            if (attached.contains(session)) {
                return true;
            }
        }
        if (transport.bindings().isPinned(session)) {
            // Pinned: to its handshake's socket, which the engine checks, or, handshaken over HTTP, to no socket.
            return false;
        }
        CookieBinding binding = transport.binding();
        if (binding.mode() == SessionBinding.NONE) {
            return true;
        }
        // Another socket of the same browser (a reconnection) may take the session over. A cookie given on this
        // upgrade went to this socket's client: a session bound to it since (its client's handshake over HTTP with
        // that cookie) is this client's, though the client has not shown the cookie here.
        if (binding.vouchesFor(session, browserId)) {
            if (!browserIdGiven) {
                transport.bindings().browserCookieShown(session);
            }
            return true;
        }
        // A socket opened without a cookie just before its client's first handshake over HTTP may, once, whether or
        // not the client has shown its cookie over HTTP since (FirstSocketAdoptions). Asked before the mode's own
        // rule, so that the cookie this socket was given vouches for the session from now on, whichever cookie the
        // client keeps. Only a socket given its cookie on upgrade came without one from a trusted origin: one from
        // an origin allowed only by "*" (any site's page) may adopt nothing.
        if (browserIdGiven && transport.adoptions().adopt(session, remoteAddress, browserId)) {
            return true;
        }
        return binding.mayCarry(session, null);
    }

    @Override
    public void attach(ServerSession session) {
        SessionLimits.Admission admission = pendingAdmission;
        if (admission != null) {
            admission.bind(session);
        }
        if (!transport.bindings().isBoundToBrowser(session)) {
            transport.binding().bind(session, browserId, !browserIdGiven);
        }
        transport.adoptions().carriedBySocket(session);
        boolean carried;
        ScheduledFuture<?> check = null;
        synchronized (this) {
            carried = !ended;
            if (carried) {
                // Sessions that ended stay referenced until the socket closes; drop them as new ones come. The
                // usual case, each connect of the socket's one session, changes nothing.
                if (attached.size() != 1 || attached.get(0) != session) {
                    List<ServerSession> kept = new ArrayList<>(attached.size() + 1);
                    for (ServerSession old : attached) {
                        if (old.isHandshook()) {
                            kept.add(old);
                        }
                    }
                    if (!kept.contains(session)) {
                        kept.add(session);
                    }
                    attached = List.copyOf(kept);
                }
                carriedSession = true;
                check = handshakeCheck;
                handshakeCheck = null;
            }
        }
        if (check != null) {
            // It would find the socket carrying a session and do nothing: free it now rather than after the wait.
            check.cancel(false);
        }
        if (!carried) {
            // The socket died while the engine was processing a batch from it.
            transport.execute(() -> engine.carrierFailed(session, this));
        }
    }

    // ---- socket events, from the adapter ---------------------------------------------------------------------

    /**
     * Gives the carrier the browser cookie of its upgrade, before the socket opens. Sessions created on this socket
     * are bound to it, and sessions of that browser created elsewhere may move to this socket. Adapters pass null
     * when the upgrade came from an origin allowed only through {@code *} (a page of any site must not be able to
     * act with a visitor's cookie), and a new value, marked given, when it came without the cookie.
     *
     * @param browser the cookie value, or null
     * @param given true if the upgrade came without the cookie and its response sets this new value: sessions
     *        created on this socket are bound to it, but it proves nothing about sessions created elsewhere
     */
    public void setBrowserId(String browser, boolean given) {
        this.browserId = browser;
        this.browserIdGiven = given;
    }

    /**
     * Gives the carrier the client's address, before the socket opens, for {@code maxSessionsPerAddress} and
     * {@code maxHandshakesPerAddressPerSecond}; adapters that cannot tell leave it null, and the socket's handshakes
     * are then not counted by address.
     *
     * @param address the remote IP address, or null
     */
    public void setRemoteAddress(String address) {
        this.remoteAddress = address;
    }

    /**
     * The socket is open; the adapter may now read the first message.
     *
     * @param socket the socket
     */
    public void opened(SocketPeer socket) {
        peer = socket;
        writes = new TextWriteQueue(socket, transport.maxPendingBytes(), transport.maxOutgoingFrameBytes(),
                this::writeFailed, transport::execute);
        synchronized (this) {
            if (ended) {
                return;
            }
            opened = true;
        }
        transport.opened();
        // Weakly: a socket that closes early must not be kept in memory until the check comes.
        WeakReference<SocketCarrier> self = new WeakReference<>(this);
        ScheduledFuture<?> check = transport.afterHandshakeTimeout(() -> {
            SocketCarrier carrier = self.get();
            if (carrier != null) {
                carrier.closeUnlessCarryingASession();
            }
        });
        synchronized (this) {
            if (!ended && !carriedSession) {
                handshakeCheck = check;
                return;
            }
        }
        if (check != null) {
            check.cancel(false);
        }
    }

    /** A socket that never completed a handshake costs a connection and buffers for nothing: it is closed. */
    private void closeUnlessCarryingASession() {
        synchronized (this) {
            if (ended || carriedSession) {
                return;
            }
        }
        transport.handshakeTimedOut();
        LOG.debug("Closing {}: no Bayeux handshake within {}", this, transport.handshakeTimeout());
        close(CLOSE_POLICY, "no handshake within " + transport.handshakeTimeout().toMillis() + " ms");
    }

    /**
     * A whole text message arrived.
     *
     * @param text the message
     * @return completed when the message has been processed: with true if the adapter should read the next
     *         message, false if the carrier has ended; never completed exceptionally
     */
    public CompletionStage<Boolean> onText(String text) {
        IncomingBatch batch;
        try {
            batch = engine.parse(text);
        } catch (BadBatchException bad) {
            LOG.debug("Closing {}: bad batch", this, bad);
            close(CLOSE_SERVER_ERROR, bad.getMessage());
            return CompletableFuture.completedFuture(false);
        }
        SessionLimits.Admission admission = null;
        if (batch.isHandshake()) {
            admission = transport.limits().admit(browserId, remoteAddress);
            if (admission.isRefused()) {
                send(admission.refusal(engine, batch));
                return CompletableFuture.completedFuture(!isEnded());
            }
        }
        // Batches of one socket are handled one at a time: the handshake's session finds its admission in attach().
        pendingAdmission = admission;
        CompletionStage<Void> handled;
        try {
            handled = engine.handle(batch, this);
        } catch (RuntimeException failure) {
            handled = CompletableFuture.failedFuture(failure);
        }
        SessionLimits.Admission admitted = admission;
        return handled.handle((ignored, failure) -> {
            if (admitted != null) {
                pendingAdmission = null;
                admitted.releaseUnlessBound();
            }
            if (failure != null) {
                QUIET.warn("batch:" + failure.getClass().getName(), "Failed to handle a batch from {}", this, failure);
                close(CLOSE_SERVER_ERROR, "internal error");
                return false;
            }
            return !isEnded();
        });
    }

    /** A binary message arrived: Bayeux has none, so the socket is closed with 1003. */
    public void onBinary() {
        close(CLOSE_BAD_DATA, "binary frames are not accepted");
    }

    /**
     * A text message exceeded {@link SocketTransport#maxIncomingMessageBytes()}, for adapters whose server does not
     * enforce the limit itself: the socket is closed with 1009.
     */
    public void onTooBig() {
        close(CLOSE_TOO_BIG, "message too big");
    }

    /**
     * The socket failed; the carrier ends.
     *
     * @param cause the failure
     */
    public void onError(Throwable cause) {
        LOG.debug("{} failed", this, cause);
        end();
    }

    /**
     * The socket closed; the carrier ends.
     *
     * @param code the close code
     * @param reason the close reason
     */
    public void onClosed(int code, String reason) {
        LOG.debug("{} closed: {} {}", this, code, reason);
        end();
    }

    // ---- write stalls ----------------------------------------------------------------------------------------

    private void watchForStall() {
        if (stallCheckArmed == 0 && STALL_CHECK_ARMED.compareAndSet(this, 0, 1)) {
            scheduleStallCheck(transport.writeStallTimeout().toNanos());
        }
    }

    private void scheduleStallCheck(long delayNanos) {
        if (engine.services().schedule(this::checkStall, Duration.ofNanos(delayNanos)) == null) {
            // The engine has stopped; so is the transport.
            stallCheckArmed = 0;
        }
    }

    /** On the engine's timer thread: drops the peer if its backlog has not moved for the stall timeout. */
    private void checkStall() {
        TextWriteQueue current = writes;
        long busySince = current == null || isEnded() ? -1 : current.busySinceNanos();
        if (busySince < 0) {
            stallCheckArmed = 0;
            // A write that came between the look and the reset found the check armed: watch for it now.
            if (current != null && !isEnded() && current.busySinceNanos() >= 0) {
                watchForStall();
            }
            return;
        }
        long timeoutNanos = transport.writeStallTimeout().toNanos();
        long stalledNanos = System.nanoTime() - busySince;
        if (stalledNanos < timeoutNanos) {
            scheduleStallCheck(timeoutNanos - stalledNanos);
            return;
        }
        LOG.info("{} accepted no bytes for {} with {} bytes to write; dropping it", this,
                transport.writeStallTimeout(), current.pendingBytes());
        transport.writeStallDropped();
        peer.abort();
        end();
    }

    // ---- end of life -----------------------------------------------------------------------------------------

    private void writeFailed(Throwable failure) {
        if (isEnded()) {
            // Writes fail once the socket is closing; the close frame, if any, must not be cut short.
            return;
        }
        LOG.debug("A write on {} failed", this, failure);
        peer.abort();
        end();
    }

    /** Closes the socket with a code and ends the carrier now, without waiting for the peer's close frame. */
    private void close(int code, String reason) {
        peer.close(code, printableAscii(reason));
        end();
    }

    /** A close reason must fit a control frame: short, and here plain ASCII so that its length in bytes is known. */
    private static String printableAscii(String reason) {
        String text = reason == null ? "" : reason;
        StringBuilder safe = new StringBuilder(Math.min(text.length(), MAX_REASON_LENGTH));
        for (int i = 0; i < text.length() && safe.length() < MAX_REASON_LENGTH; i++) {
            char c = text.charAt(i);
            safe.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return safe.toString();
    }

    /** @return true once the connection has ended, for whatever reason */
    public synchronized boolean isEnded() {
        return ended;
    }

    /** Ends the carrier, once: drops pending writes and tells the engine about every session it carried. */
    private void end() {
        List<ServerSession> sessions;
        boolean counted;
        ScheduledFuture<?> check;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            counted = opened;
            sessions = attached;
            attached = List.of();
            check = handshakeCheck;
            handshakeCheck = null;
        }
        if (check != null) {
            check.cancel(false);
        }
        TextWriteQueue current = writes;
        if (current != null) {
            current.abandon();
        }
        if (counted) {
            transport.closed();
        }
        if (!sessions.isEmpty()) {
            transport.execute(() -> {
                for (ServerSession session : sessions) {
                    engine.carrierFailed(session, this);
                }
            });
        }
    }

    @Override
    public String toString() {
        SocketPeer current = peer;
        return "WebSocket[" + (current == null ? "not open" : current) + "]";
    }
}
