package org.bayeux.server.transport;

/**
 * A batch of messages parsed by {@link TransportEngine#parse(String)}, ready to be
 * {@link TransportEngine#handle(IncomingBatch, Carrier) handled}. Opaque to transports: they may ask what they need to
 * admit it (is it a handshake?) and nothing else, so the engine's message classes never leak into them.
 */
public interface IncomingBatch {
    /** @return true if the batch is a {@code /meta/handshake} (which is always alone in its batch) */
    boolean isHandshake();

    /** @return how many messages the batch holds, at least one */
    int size();
}
