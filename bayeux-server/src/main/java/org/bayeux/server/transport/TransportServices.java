package org.bayeux.server.transport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.bayeux.server.config.BayeuxServerConfig;

/**
 * What the transports of one engine share with it and with each other, rather than each keep a copy: the engine's
 * configuration, its timer thread, one instance of a part per engine, the transport names to advertise, and the
 * bindings of sessions to their clients. A transport reaches them through {@link TransportEngine#services()}.
 */
public interface TransportServices {
    /** @return the engine's configuration (message sizes, timeouts and queue limits apply to transports too) */
    BayeuxServerConfig getConfig();

    /**
     * Runs a short task later on the engine's timer thread, for transports' timers: one thread for every timer rather
     * than one per socket. The task must be quick and must not block.
     *
     * @param task the task
     * @param delay how long from now
     * @return the scheduled task, or null if the engine has stopped
     */
    ScheduledFuture<?> schedule(Runnable task, Duration delay);

    /**
     * The one instance of a part that every transport of this engine shares (the session caps of the HTTP and
     * WebSocket transports, for example), made by the first transport that asks. It lives as long as the engine, so
     * the transports of two engines in one JVM never share state.
     *
     * @param type the part's class, its key
     * @param factory makes the part on the first call
     * @param <T> the part's type
     * @return this engine's instance
     */
    <T> T transportPart(Class<T> type, Supplier<? extends T> factory);

    /**
     * @param names the transports to advertise in handshake replies and to accept in connects, in order
     */
    void setTransportNames(List<String> names);

    /**
     * @return the bindings of sessions to the browser they were created from and to the carrier of their handshake,
     *         which only transports can see and only the engine outlives; the same instance on every call
     */
    ClientBindings bindings();
}
