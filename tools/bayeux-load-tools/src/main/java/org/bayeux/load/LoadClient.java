package org.bayeux.load;

import java.util.Map;
import java.util.function.Consumer;

/**
 * What the load run needs of one simulated client, whatever client library is behind it: connect and join rooms,
 * publish, receive deliveries with their timestamps, ask the load server for its statistics, disconnect. The run
 * never sees a client library's own API, so the three clients ({@code ours}, {@code raw}, {@code cometd}) are driven
 * alike.
 */
interface LoadClient {
    /** Where a client reports what it received; called from the client's I/O threads, must be quick. */
    interface Listener {
        /**
         * A load message arrived.
         *
         * @param client the receiving client's index
         * @param seq the message's sequence number
         * @param scheduledNanos the time it was scheduled for, on this JVM's {@link System#nanoTime()} clock
         */
        void delivered(int client, long seq, long scheduledNanos);

        /**
         * Something went wrong that the run must count as an error: a failed publish, a message that is not the
         * load's, a connection lost.
         *
         * @param client the client's index
         * @param what what happened, without message bodies
         */
        void error(int client, String what);

        /**
         * The server refused one publish (its reply was unsuccessful).
         *
         * @param client the publishing client's index
         * @param seq the message's sequence number
         * @param why the server's error
         */
        void refused(int client, long seq, String why);
    }

    /** One message to publish. */
    record Publish(String channel, long seq, long scheduledNanos) {
    }

    /**
     * Handshakes, connects and joins the rooms.
     *
     * @param rooms the channels to subscribe to
     * @param joined run once, when every room is joined
     * @param failed run once, with the reason, if the client could not connect or join; then {@code joined} never
     *        runs
     */
    void start(String[] rooms, Runnable joined, Consumer<String> failed);

    /**
     * Publishes messages together, in one Bayeux batch where the client can.
     *
     * @param batch the messages
     * @param payload builds each message's data
     */
    void publish(Publish[] batch, Payload payload);

    /**
     * Asks the load server's statistics service ({@link LoadRun#STATS_SERVICE}).
     *
     * @param fullGc whether the server runs a full GC first
     * @param answer called once with the statistics, or with an empty map if the server has no such service or did
     *        not answer; may never be called if the connection is gone (the caller waits with a timeout)
     */
    void askStats(boolean fullGc, Consumer<Map<String, Object>> answer);

    /**
     * Disconnects.
     *
     * @param done run once the server confirmed or the connection is gone
     */
    void disconnect(Runnable done);
}
