package org.bayeux.load;

/**
 * Makes the simulated clients and owns what they share (HTTP and WebSocket clients, threads), so that thousands of
 * clients need no thread each.
 */
interface ClientFactory extends AutoCloseable {
    /**
     * @param index the client's index, 0 to N-1
     * @param transport the Bayeux transport name it must use ({@code websocket} or {@code long-polling})
     * @param listener where it reports deliveries and errors
     * @return a new client, not yet handshaken
     */
    LoadClient newClient(int index, String transport, LoadClient.Listener listener);

    /** Stops what the clients share. */
    @Override
    void close();
}
