package org.bayeux.api;

/**
 * A Bayeux session, seen from either end: the server's view of a client, or a client's view of itself. It carries
 * the application's attributes ({@link Attributed}).
 */
public interface Session extends Attributed {
    /** @return the session id made by the server at handshake; null before a client has handshaken */
    String getId();

    /** @return true once the handshake has succeeded and until the session ends */
    boolean isHandshook();

    /** @return true while the session has a working connect loop */
    boolean isConnected();

    /** Ends the session; on the server this removes it, on a client it sends {@code /meta/disconnect}. */
    void disconnect();

    /**
     * Runs a block in a batch: messages it sends or queues go out together when it returns.
     *
     * @param batch the block to run
     */
    default void batch(Runnable batch) {
        startBatch();
        try {
            batch.run();
        } finally {
            endBatch();
        }
    }

    /** Starts a batch; batches nest, and must be ended as many times as they were started. */
    void startBatch();

    /**
     * Ends a batch; ending the outermost batch sends what it held.
     *
     * @return true if this ended the outermost batch
     */
    boolean endBatch();
}
