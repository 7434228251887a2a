package org.bayeux.server.transport;

/**
 * What a {@link Carrier} can do, fixed for its life: the engine reads it to decide whether to hold a
 * {@code /meta/connect}, push while one is held, let queued messages ride along with other replies, pin a session, and
 * how many queued bytes to hand over at once. Transports make one per kind of carrier (at start, from their
 * configuration) and every carrier of that kind returns the same instance, so that asking costs no allocation.
 *
 * <p>Start from {@link #of(String)}, which can do nothing special, and add what the carrier can do:</p>
 * <pre>{@code
 * CarrierCapabilities.of("websocket").holdingConnects().pushingWhileHeld().persistent().piggybacking()
 *         .maxResponseBytes(65536)
 * }</pre>
 *
 * @param transportName the transport name, as advertised in handshakes, for example {@code long-polling}
 * @param canHoldConnect true if a lone {@code /meta/connect} arriving on the carrier may be held until messages
 *        arrive or the timeout passes
 * @param pushesWhileHeld true if messages may be sent on the carrier while a connect is held, without completing it
 *        (WebSocket); false if the held connect's reply is the only way out (long-polling)
 * @param persistentConnection true if the carrier is one connection that carries its client's later batches too (a
 *        WebSocket), so that a session may be pinned to it ({@link ClientBindings#pinToHandshakeCarrier}); false
 *        if it carries one batch (an HTTP request)
 * @param allowsPiggyback true if queued messages may ride along with replies to messages other than
 *        {@code /meta/connect}
 * @param maxResponseBytes the most JSON bytes of queued messages to send at once (an HTTP response, a WebSocket
 *        frame); the rest stay queued for the next delivery. One message is always sent, however large.
 */
public record CarrierCapabilities(String transportName, boolean canHoldConnect, boolean pushesWhileHeld,
        boolean persistentConnection, boolean allowsPiggyback, int maxResponseBytes) {
    /**
     * @throws IllegalArgumentException if the name is null or empty, or the byte limit is not positive
     */
    public CarrierCapabilities {
        if (transportName == null || transportName.isEmpty()) {
            throw new IllegalArgumentException("A carrier needs a transport name");
        }
        if (maxResponseBytes <= 0) {
            throw new IllegalArgumentException("maxResponseBytes must be positive, not " + maxResponseBytes);
        }
    }

    /**
     * @param transportName the transport name, as advertised in handshakes
     * @return a carrier that holds no connect, pushes nothing, carries one batch, takes no piggyback and no limit on
     *         response bytes
     */
    public static CarrierCapabilities of(String transportName) {
        return new CarrierCapabilities(transportName, false, false, false, false, Integer.MAX_VALUE);
    }

    /** @return these capabilities, with connects that may be held */
    public CarrierCapabilities holdingConnects() {
        return new CarrierCapabilities(transportName, true, pushesWhileHeld, persistentConnection, allowsPiggyback,
                maxResponseBytes);
    }

    /** @return these capabilities, with pushes while a connect is held */
    public CarrierCapabilities pushingWhileHeld() {
        return new CarrierCapabilities(transportName, canHoldConnect, true, persistentConnection, allowsPiggyback,
                maxResponseBytes);
    }

    /** @return these capabilities, on one connection that carries a client's later batches too */
    public CarrierCapabilities persistent() {
        return new CarrierCapabilities(transportName, canHoldConnect, pushesWhileHeld, true, allowsPiggyback,
                maxResponseBytes);
    }

    /** @return these capabilities, letting queued messages ride along with any reply */
    public CarrierCapabilities piggybacking() {
        return new CarrierCapabilities(transportName, canHoldConnect, pushesWhileHeld, persistentConnection, true,
                maxResponseBytes);
    }

    /**
     * @param bytes the most JSON bytes of queued messages to send at once, positive
     * @return these capabilities, with that limit
     */
    public CarrierCapabilities maxResponseBytes(int bytes) {
        return new CarrierCapabilities(transportName, canHoldConnect, pushesWhileHeld, persistentConnection,
                allowsPiggyback, bytes);
    }
}
