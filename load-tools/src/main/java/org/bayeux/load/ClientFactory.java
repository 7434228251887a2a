package org.bayeux.load;

import org.bayeux.api.client.ClientSession;

/**
 * Makes the simulated clients and owns what they share (HTTP and WebSocket clients, threads), so that thousands of
 * clients need no thread each.
 */
interface ClientFactory extends AutoCloseable {
    /**
     * @param index the client's index, 0 to N-1
     * @param transport the Bayeux transport name it must use
     * @return a new client, not yet handshaken
     */
    ClientSession newClient(int index, String transport);

    /** Stops what the clients share. */
    @Override
    void close();
}
