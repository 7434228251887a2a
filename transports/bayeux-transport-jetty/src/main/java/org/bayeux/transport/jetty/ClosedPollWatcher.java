package org.bayeux.transport.jetty;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

import org.eclipse.jetty.io.EndPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices at once when the client of a held HTTP/1.1 long poll closes its connection.
 *
 * <p>Jetty reads an HTTP/1.1 connection only while it wants a request or its body: once a held poll's body has been
 * read, nothing reads the socket, so a client that goes away is not seen until the response is written, and its
 * session would live until the hold times out plus {@code maxInterval}. While a poll is held, this watcher also
 * registers the connection's socket channel with a selector of its own (a channel may be registered with several;
 * Jetty's registration is untouched) and waits for it to become readable. A held long poll's client sends nothing
 * more on that connection (Bayeux clients send their other requests on another one), so readability means the peer
 * closed or reset it, or broke the protocol by pipelining: either way the exchange fails (its failure listeners
 * tell the engine, {@code carrierFailed}, which starts the session's expiry) and the request completes with that
 * failure, which makes Jetty drop the connection.</p>
 *
 * <p>Nothing is read from the socket, so the watch costs no data. A watch ends when the poll is answered. HTTP/2 and
 * HTTP/3 need no watcher: a client's reset of its stream reaches the failure listener directly.</p>
 */
final class ClosedPollWatcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ClosedPollWatcher.class);

    private final Selector selector;
    private final Executor executor;
    private final ConcurrentLinkedQueue<Watch> changes = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param executor runs the closes of endpoints (Jetty's thread pool), off the watcher's thread
     * @throws IOException if no selector can be opened
     */
    ClosedPollWatcher(Executor executor) throws IOException {
        this.selector = Selector.open();
        this.executor = executor;
        this.thread = new Thread(this, "bayeux-closed-poll-watcher");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Starts watching the connection of a held request.
     *
     * @param endPoint the connection's endpoint
     * @param onClosed run, on the executor, if the connection becomes readable (closed) before the watch is cancelled
     * @return the watch, to {@link Watch#cancel()} when the request is answered; null if the endpoint's transport
     *         cannot be watched (not a socket channel)
     */
    Watch watch(EndPoint endPoint, Runnable onClosed) {
        if (!running || !(endPoint.getTransport() instanceof SelectableChannel channel)) {
            return null;
        }
        Watch watch = new Watch(endPoint, channel, onClosed);
        changes.add(watch);
        selector.wakeup();
        return watch;
    }

    @Override
    public void run() {
        try {
            while (running) {
                applyChanges();
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    key.cancel();
                    Watch watch = (Watch) key.attachment();
                    if (!watch.cancelled) {
                        watch.cancelled = true;
                        LOG.debug("The client of a held long poll closed its connection {}", watch.endPoint);
                        executor.execute(watch.onClosed);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | ClosedSelectorException failure) {
            if (running) {
                LOG.warn("The watcher of held long polls stopped; closed polls are now noticed when answered", failure);
            }
        }
    }

    private void applyChanges() {
        // Bounded by what was queued before this pass: watches added meanwhile wait for the next wake-up.
        for (int pending = changes.size(); pending > 0; pending--) {
            Watch watch = changes.poll();
            if (watch == null) {
                return;
            }
            if (watch.cancelled) {
                if (watch.key != null) {
                    watch.key.cancel();
                }
                continue;
            }
            try {
                watch.key = watch.channel.register(selector, SelectionKey.OP_READ, watch);
            } catch (ClosedChannelException | IllegalBlockingModeException | CancelledKeyException gone) {
                LOG.debug("Cannot watch {}", watch.endPoint, gone);
            }
        }
    }

    /** Stops the watcher's thread and closes its selector; Jetty's connections are not affected. */
    void stop() {
        running = false;
        selector.wakeup();
        try {
            thread.join(5_000);
            selector.close();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            LOG.debug("Closing the selector failed", ignored);
        }
    }

    /** The watch of one held request's connection. */
    final class Watch {
        private final EndPoint endPoint;
        private final SelectableChannel channel;
        private final Runnable onClosed;
        /** Written by the selector's thread only. */
        private SelectionKey key;
        private volatile boolean cancelled;

        private Watch(EndPoint endPoint, SelectableChannel channel, Runnable onClosed) {
            this.endPoint = endPoint;
            this.channel = channel;
            this.onClosed = onClosed;
        }

        /** The request was answered: stop watching, before the connection reads its next request. */
        void cancel() {
            if (!cancelled) {
                cancelled = true;
                changes.add(this);
                selector.wakeup();
            }
        }
    }
}
