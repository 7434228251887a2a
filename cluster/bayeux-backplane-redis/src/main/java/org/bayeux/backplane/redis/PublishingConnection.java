package org.bayeux.backplane.redis;

/**
 * The node's connection for commands (publishes, recovery reads, presence, positioning shards), opened once every
 * reader has positioned itself and kept until the backplane stops. Shared by the parts that send commands, so that
 * none of them needs the {@link RedisBackplane} that owns it.
 */
final class PublishingConnection {
    private volatile RedisLink.Connection connection;
    /** Whether it was opened since start: until then, positioning shards waits for it. */
    private volatile boolean everOpened;

    /** @return the connection while it is open, else null */
    RedisLink.Connection open() {
        RedisLink.Connection current = connection;
        return current != null && current.isOpen() ? current : null;
    }

    /** @return the connection, open or not, or null before it is set (the calls fail on it as Redis away) */
    RedisLink.Connection current() {
        return connection;
    }

    /** @return whether the connection was set since {@link #reset} */
    boolean everOpened() {
        return everOpened;
    }

    /** @return whether it is set (the readers' work to open it is done) */
    boolean isSet() {
        return connection != null;
    }

    /** @param opened the connection, from now on */
    void set(RedisLink.Connection opened) {
        connection = opened;
        everOpened = true;
    }

    /** At start: not opened yet. */
    void reset() {
        connection = null;
        everOpened = false;
    }

    /** At stop: no connection (the link closes it). */
    void clear() {
        connection = null;
    }
}
