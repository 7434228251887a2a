package org.bayeux.server;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerSession;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.transport.ClientBindings;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.server.transport.TransportServices;

/**
 * A Bayeux engine as the code that embeds it sees it. Applications and transports hold this type; the implementation
 * stays inside this module. It is, by concern:
 * <ul>
 * <li>for applications, a {@link BayeuxServer} (channels, sessions, listeners, extensions, security policy);</li>
 * <li>for transports, the {@link TransportEngine} core (parse, handle, carrier failed), the
 * {@link TransportServices} they share (configuration, timer, shared parts, advertised names) and the
 * {@link ClientBindings} of sessions to their clients, which applications use too, to pin a session;</li>
 * <li>for the embedder alone, what is declared here: a life cycle ({@link #start()}, {@link #drain}, {@link #stop()}),
 * the cluster and session store, figures for monitoring, and a text {@link #dump() dump} of its state.</li>
 * </ul>
 * An embedder that mounts a ready transport (Jetty's {@code BayeuxEndpoint}, the servlet) needs only the first and
 * the last; the transport SPI matters only to code that writes a transport.
 *
 * <pre>{@code
 * BayeuxEngine bayeux = BayeuxEngine.create(BayeuxServerConfig.defaults());
 * BayeuxEndpoint.mount(server, "/cometd", bayeux, TransportConfig.defaults());
 * }</pre>
 *
 * <p>Life cycle: create, configure (listeners, extensions, policy, channels), {@link #start()}, and finally
 * {@link #stop()}, which ends every session and stops the timers.</p>
 */
public interface BayeuxEngine extends BayeuxServer, TransportEngine, TransportServices, ClientBindings {
    /**
     * @param config the configuration
     * @return a new engine, not started
     * @throws org.bayeux.server.config.InvalidConfigurationException if the configured codec is not on the class path
     */
    static BayeuxEngine create(BayeuxServerConfig config) {
        return new BayeuxServerImpl(config);
    }

    /** @return a new engine with the default configuration, not started */
    static BayeuxEngine create() {
        return new BayeuxServerImpl();
    }

    /**
     * Joins this engine to other nodes. Set before {@link #start()}; without it the engine is a single node.
     *
     * @param cluster the cluster (Oort, a backplane), started and stopped with the engine
     * @throws IllegalStateException if the engine has started
     */
    void setCluster(Cluster cluster);

    /**
     * Replaces where sessions' durable state is kept (by default, nowhere but in the live sessions). Set before
     * {@link #start()}.
     *
     * @param store the store
     * @throws IllegalStateException if the engine has started
     */
    void setSessionStore(SessionStore store);

    /** @return where sessions' durable state is kept */
    SessionStore getSessionStore();

    /** @param listener told when other nodes join and leave */
    void addClusterListener(ClusterListener listener);

    /** @param listener a listener added before */
    void removeClusterListener(ClusterListener listener);

    /**
     * Who is here: the sessions subscribed to each plain channel, the users tied to sessions, joins and leaves; across
     * the cluster if one is {@link #setCluster set} and keeps presence ({@link Cluster#presence()}), else this node's.
     * Applications use this one seam whatever the engine is joined to.
     *
     * @return the presence, the same object at every call once the cluster is set
     */
    Presence presence();

    /** Starts the timers: the sweep of expired sessions and unused channels. */
    void start();

    /** Ends every session and stops the timers; the engine cannot be started again. */
    void stop();

    /**
     * Begins a graceful shutdown of this node. From now on handshakes from remote clients are refused with
     * {@code 503::draining} and advice {@code reconnect:"handshake"} after {@code retryInterval}; each remote
     * session's next connect (a held one at once) is answered without waiting, with what its queue holds, and the
     * connect that leaves the queue empty is refused with {@code reconnect:"handshake"}, which ends the session: its
     * client handshakes again, elsewhere once a load balancer no longer sends it here. With a session store that
     * {@linkplain SessionStore#adopts() adopts} sessions, each remote session is instead handed over: the store
     * {@linkplain SessionStore#release releases} it, nothing more is delivered here, and its held connect (or else its
     * next one) is answered successfully with {@code reconnect:"retry"}, interval 0 and no messages; the session then
     * leaves this node without {@code /meta/disconnect} (state {@code MOVED}) and the node its client reaches next
     * adopts it and replays what it missed. Local sessions are untouched.
     * Calling it again changes nothing. The caller decides the deadline: {@link #stop()} ends whatever is left.
     *
     * @param retryInterval the interval advised to refused handshakes, 0 or more
     * @return a stage that completes when no remote session is left on this node
     */
    java.util.concurrent.CompletionStage<Void> drain(java.time.Duration retryInterval);

    /** @return true once {@link #drain} was called */
    boolean isDraining();

    /** @return how many remote (not in-process) sessions are live now; counts them, so costs one pass */
    int remoteSessionCount();

    /**
     * @param session a session
     * @return true while a {@code /meta/connect} of the session waits for messages or its timeout
     */
    boolean isConnectHeld(ServerSession session);

    /**
     * A text dump of this engine's state for operators, in the spirit of Jetty's {@code Dumpable}: its life-cycle
     * state; how many sessions (remote, local, holding a connect); what their queues hold (messages, bytes, the
     * largest); their carriers by transport and the bytes those have yet to write; the channels with their
     * subscribers (most first, the first 100 by name, the rest counted); the advertised transports; the timer
     * thread; the cluster. It prints counts, sizes and channel and transport names only: never a message body, a
     * token, an attribute or a {@code clientId}. Read while the engine runs, without stopping it, so its figures
     * add up only roughly under load; it costs a pass over sessions and channels.
     *
     * @return the dump, several lines of text
     */
    String dump();

    /** @return the engine's running totals (messages, bytes, handshakes, errors) for monitoring */
    EngineStatistics statistics();

    /** @return how many times each input limit ({@link Limit}) refused a message */
    LimitCounters getLimitCounters();

    /** @return how often sessions' queues reached their limits */
    QueueLimitCounters queueLimitCounters();

    /**
     * @return how many messages named a live session from a carrier that may not act as it, and were answered as for
     *         an unknown session
     */
    long getForeignClientIdCount();
}
