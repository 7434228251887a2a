package org.bayeux.transport.http;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionRemovedListener;
import org.bayeux.server.transport.IncomingBatch;
import org.bayeux.server.transport.OutgoingMessages;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.server.transport.TransportServices;

/**
 * Caps the sessions one client may create, whatever transport it handshakes on: live sessions per browser cookie
 * ({@link TransportConfig#MAX_SESSIONS_PER_COOKIE}), live sessions per remote address
 * ({@link TransportConfig#MAX_SESSIONS_PER_ADDRESS}) and handshakes per second per remote address
 * ({@link TransportConfig#MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND}). A refused handshake gets ({@link Admission#refusal})
 * {@code 403::too_many_sessions} or {@code 403::too_many_handshakes}, with advice to handshake again later, and is
 * counted. A client without a cookie is counted by its address only, so leaving the cookie out does not escape the
 * caps.
 *
 * <p>The remote address is the one the server sees: the TCP peer, or the client named by a proxy's forwarded headers
 * when the server trusts them (Jetty's {@code ForwardedRequestCustomizer}, the standalone server's
 * {@code --forwarded}). Behind a proxy whose headers are not trusted, every client has the proxy's address.</p>
 *
 * <p>One instance serves every transport of an engine ({@link #of(TransportServices, TransportConfig)}).</p>
 */
public final class SessionLimits {
    /** The interval advised to a client whose handshake was refused, in milliseconds. */
    static final long RETRY_INTERVAL_MILLIS = 5_000;
    /** How often, in admissions, idle address entries are swept out. */
    private static final int SWEEP_EVERY = 1024;

    private final int maxPerCookie;
    private final int maxPerAddress;
    private final int handshakesPerSecond;
    /** Live sessions per cookie; small counts are cached {@code Integer}s, so an entry costs no counter object. */
    private final ConcurrentHashMap<String, Integer> perCookie = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Address> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger admissions = new AtomicInteger();
    private final LongAdder refusedPerCookie = new LongAdder();
    private final LongAdder refusedPerAddress = new LongAdder();
    private final LongAdder refusedRate = new LongAdder();

    SessionLimits(int maxPerCookie, int maxPerAddress, int handshakesPerSecond) {
        this.maxPerCookie = maxPerCookie;
        this.maxPerAddress = maxPerAddress;
        this.handshakesPerSecond = handshakesPerSecond;
    }

    /**
     * @param services the services of the engine whose transports share the limits
     * @param config the configuration of the first transport asking; later ones share its limits
     * @return the engine's limits
     */
    public static SessionLimits of(TransportServices services, TransportConfig config) {
        return services.transportPart(SessionLimits.class, () -> new SessionLimits(
                config.get(TransportConfig.MAX_SESSIONS_PER_COOKIE), config.get(TransportConfig.MAX_SESSIONS_PER_ADDRESS),
                config.get(TransportConfig.MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND)));
    }

    /** The state of one remote address: its live sessions and its handshake tokens. Guarded by the map's compute. */
    private static final class Address {
        int sessions;
        double tokens;
        long refilledAtNanos;
    }

    /**
     * Asks to create one session.
     *
     * @param cookie the browser cookie the handshake came with, or null
     * @param address the remote address, or null if unknown (then not counted)
     * @return the admission: if not {@link Admission#isRefused() refused}, to {@link Admission#bind bind} to the
     *         session created or {@link Admission#releaseUnlessBound release} if none was; refusals are counted
     */
    public Admission admit(String cookie, String address) {
        String addressRefusal = address == null ? null : admitAddress(address);
        if (addressRefusal != null) {
            return new Admission(null, null, addressRefusal);
        }
        if (cookie != null && maxPerCookie >= 0) {
            boolean[] admitted = {false};
            perCookie.compute(cookie, (key, count) -> {
                int current = count == null ? 0 : count;
                if (current < maxPerCookie) {
                    admitted[0] = true;
                    return current + 1;
                }
                return count;
            });
            if (!admitted[0]) {
                refusedPerCookie.increment();
                releaseAddress(address);
                return new Admission(null, null, "too_many_sessions");
            }
        }
        return new Admission(cookie != null && maxPerCookie >= 0 ? cookie : null, address, null);
    }

    /** @return null if admitted, else the refusal's error token */
    private String admitAddress(String address) {
        if (maxPerAddress < 0 && handshakesPerSecond < 0) {
            return null;
        }
        if (admissions.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep();
        }
        long now = System.nanoTime();
        String[] refused = {null};
        perAddress.compute(address, (key, state) -> {
            Address current = state;
            if (current == null) {
                current = new Address();
                current.tokens = handshakesPerSecond;
                current.refilledAtNanos = now;
            }
            refill(current, now);
            if (maxPerAddress >= 0 && current.sessions >= maxPerAddress) {
                refused[0] = "sessions";
            } else if (handshakesPerSecond >= 0 && current.tokens < 1) {
                refused[0] = "rate";
            } else {
                current.sessions++;
                current.tokens--;
            }
            return current;
        });
        if ("sessions".equals(refused[0])) {
            refusedPerAddress.increment();
            return "too_many_sessions";
        }
        if ("rate".equals(refused[0])) {
            refusedRate.increment();
            return "too_many_handshakes";
        }
        return null;
    }

    private void refill(Address state, long now) {
        if (handshakesPerSecond < 0) {
            return;
        }
        double elapsedSeconds = (now - state.refilledAtNanos) / 1e9;
        state.tokens = Math.min(handshakesPerSecond, state.tokens + elapsedSeconds * handshakesPerSecond);
        state.refilledAtNanos = now;
    }

    /** Drops addresses with no session whose handshake budget is whole again: they would be recreated as they are. */
    private void sweep() {
        long now = System.nanoTime();
        for (String address : List.copyOf(perAddress.keySet())) {
            perAddress.computeIfPresent(address, (key, state) -> {
                refill(state, now);
                return state.sessions == 0 && (handshakesPerSecond < 0 || state.tokens >= handshakesPerSecond)
                        ? null : state;
            });
        }
    }

    private void releaseAddress(String address) {
        if (address != null && !(maxPerAddress < 0 && handshakesPerSecond < 0)) {
            perAddress.computeIfPresent(address, (key, state) -> {
                state.sessions = Math.max(0, state.sessions - 1);
                return state;
            });
        }
    }

    private void releaseCookie(String cookie) {
        if (cookie != null) {
            perCookie.computeIfPresent(cookie, (key, count) -> count <= 1 ? null : count - 1);
        }
    }

    /** @return handshakes refused because their browser cookie had {@code maxSessionsPerCookie} live sessions */
    public long refusedPerCookie() {
        return refusedPerCookie.sum();
    }

    /** @return handshakes refused because their address had {@code maxSessionsPerAddress} live sessions */
    public long refusedPerAddress() {
        return refusedPerAddress.sum();
    }

    /** @return handshakes refused because their address exceeded {@code maxHandshakesPerAddressPerSecond} */
    public long refusedHandshakeRate() {
        return refusedRate.sum();
    }

    /** @return how many remote addresses are tracked now */
    public int trackedAddresses() {
        return perAddress.size();
    }

    /**
     * One admitted session-to-be: its slots are released once, when the session is removed or, if no session was
     * created, at once.
     */
    public final class Admission implements SessionRemovedListener {
        private static final AtomicIntegerFieldUpdater<Admission> RELEASED =
                AtomicIntegerFieldUpdater.newUpdater(Admission.class, "released");
        private static final AtomicIntegerFieldUpdater<Admission> BOUND =
                AtomicIntegerFieldUpdater.newUpdater(Admission.class, "bound");

        private final String cookie;
        private final String address;
        private final String refusedToken;
        // 0 or 1, set once through the updaters: each session keeps its admission, so no AtomicBoolean objects.
        private volatile int released;
        private volatile int bound;

        private Admission(String cookie, String address, String refusedToken) {
            this.cookie = cookie;
            this.address = address;
            this.refusedToken = refusedToken;
        }

        /** @return true if the handshake must be refused with {@link #refusal} */
        public boolean isRefused() {
            return refusedToken != null;
        }

        /**
         * The reply to a refused handshake: unsuccessful, {@code 403::too_many_sessions} or
         * {@code 403::too_many_handshakes}, advising a new handshake after {@value #RETRY_INTERVAL_MILLIS} ms.
         *
         * @param engine builds the reply
         * @param handshake the refused handshake
         * @return the reply, encoded
         */
        public OutgoingMessages refusal(TransportEngine engine, IncomingBatch handshake) {
            return engine.refuseHandshake(handshake, "403::" + refusedToken, Map.of(
                    Message.RECONNECT_FIELD, Message.RECONNECT_HANDSHAKE,
                    Message.INTERVAL_FIELD, RETRY_INTERVAL_MILLIS));
        }

        /**
         * The handshake created this session: the slots are released when it is removed.
         *
         * @param session the session
         */
        public void bind(ServerSession session) {
            if (isRefused() || !BOUND.compareAndSet(this, 0, 1)) {
                return;
            }
            session.addRemovedListener(this);
            if (!session.isHandshook()) {
                // Removed before the listener was added.
                release();
            }
        }

        /** Releases the slots unless a session holds them ({@link #bind}). */
        public void releaseUnlessBound() {
            if (bound == 0 && !isRefused()) {
                release();
            }
        }

        /** The session this admission was bound to was removed: its slots are released. */
        @Override
        public void removed(ServerSession session, ServerMessage message, boolean expired) {
            release();
        }

        private void release() {
            if (RELEASED.compareAndSet(this, 0, 1)) {
                releaseCookie(cookie);
                releaseAddress(address);
            }
        }
    }
}
