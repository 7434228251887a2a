package org.bayeux.server;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.json.MalformedJsonException;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ChannelListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionAdoptionListener;
import org.bayeux.api.server.SessionListener;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.InMemorySessionStore;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.SessionStore;
import org.bayeux.server.cluster.SingleNodePresence;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.transport.BadBatchException;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.IncomingBatch;
import org.bayeux.server.transport.OutgoingMessages;
import org.bayeux.server.transport.ClientBindings;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.server.transport.TransportServices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Bayeux engine. It ties together the channel and session registries, the incoming path, publishing,
 * security, extensions and timers; transports talk to it through {@link TransportEngine}, embedders through
 * {@link BayeuxEngine}, and nothing outside this module names this class.
 *
 * <p>Life cycle: construct, configure (listeners, extensions, policy, channels), {@link #start()}, and finally
 * {@link #stop()}, which ends every session and stops the timers.</p>
 */
public final class BayeuxServerImpl implements BayeuxEngine {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxServerImpl.class);
    /** The transports advertised when the embedding transport module sets none. */
    public static final List<String> DEFAULT_TRANSPORTS = List.of("websocket", "long-polling", "callback-polling");

    private final BayeuxServerConfig config;
    private final Limits limits;
    private final JsonCodec codec;
    private final ScheduledThreadPoolExecutor scheduler;
    private final EngineEvents events = new EngineEvents();
    private final ExtensionChain extensions = new ExtensionChain();
    private final QueueLimitCounters queueLimitCounters = new QueueLimitCounters();
    private final EngineStatistics statistics = new EngineStatistics();
    private final TransportNames transportNames = new TransportNames(DEFAULT_TRANSPORTS);
    private final ChannelRegistry channels;
    private final SessionRegistry sessions;
    private final Security security;
    private final ClusterSeam clusterSeam;
    private final Publisher publisher;
    private final SessionParts sessionParts;
    private final MessageProcessor processor;
    private final EngineDump dump;
    private final PortableAttributes portableAttributes = new PortableAttributes();
    private final SessionAdoptions adoptions;
    private final ConcurrentHashMap<Class<?>, Object> transportParts = new ConcurrentHashMap<>();
    private ScheduledFuture<?> sweeper;
    private final Draining draining = new Draining();
    private ScheduledFuture<?> drainWatch;
    /** Built by the first {@link #presence()} without a cluster's. Guarded by this. */
    private SingleNodePresence singleNodePresence;

    /** Creates an engine with the default configuration. */
    public BayeuxServerImpl() {
        this(BayeuxServerConfig.defaults());
    }

    /**
     * @param config the configuration
     * @throws InvalidConfigurationException if the configured codec is not on the class path
     */
    public BayeuxServerImpl(BayeuxServerConfig config) {
        this.config = config;
        this.limits = new Limits(config);
        this.codec = loadCodec(config);
        AtomicInteger threads = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "bayeux-scheduler-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        // Each part gets its real collaborators, once, here. Three references go back through a lambda, because the
        // parts need each other: a channel's own publish() goes to the publisher, which looks channels up; the
        // cluster's way in delivers through the publisher, whose way out is the cluster; and adoption runs its
        // subscribes through the processor, which asks it about unknown clientIds.
        this.channels = new ChannelRegistry(config, events, (from, channel, message) ->
                publisher().publish(from, channel, message));
        this.clusterSeam = new ClusterSeam(this, codec, new InMemorySessionStore(this::liveSession),
                (channel, message) -> publisher().deliverFromCluster(channel, message));
        this.sessions = new SessionRegistry(events, clusterSeam::sessionStore);
        this.security = new Security(this, channels);
        this.publisher = new Publisher(channels, extensions, clusterSeam, statistics);
        this.sessionParts = new SessionParts(config, scheduler, codec, sessions, channels, extensions,
                queueLimitCounters, clusterSeam, statistics, portableAttributes);
        ChannelCreation creation = new ChannelCreation(channels, limits, security);
        MetaHandlers meta = new MetaHandlers(sessionParts, sessions, channels, creation, security, limits, events,
                transportNames, draining);
        this.adoptions = new SessionAdoptions(config, sessionParts, sessions, clusterSeam::sessionStore, events,
                extensions, statistics, (session, subscribe) -> processor().resumeSubscribe(session, subscribe));
        this.processor = new MessageProcessor(meta, creation, sessions, extensions, security, publisher, limits,
                codec, statistics, adoptions);
        this.dump = new EngineDump(sessions, channels, scheduler, transportNames, clusterSeam, this::lifeCycleState,
                this::describeAdoptions);
    }

    @Override
    public String dump() {
        return dump.dump();
    }

    private synchronized String lifeCycleState() {
        if (scheduler.isShutdown()) {
            return "stopped";
        }
        if (draining.isOn()) {
            return "draining";
        }
        return sweeper != null ? "started" : "created";
    }

    /** @return for the dump: null while the store adopts nothing, else the adoption counts */
    private String describeAdoptions() {
        return clusterSeam.sessionStore().adopts() ? adoptions.describe() : null;
    }

    private ServerSessionImpl liveSession(String id) {
        return sessions.get(id);
    }

    private static JsonCodec loadCodec(BayeuxServerConfig config) {
        try {
            return JsonCodecProvider.find(config.codec(), BayeuxServerImpl.class.getClassLoader())
                    .newCodec(config.maxNestingDepth());
        } catch (IllegalArgumentException missing) {
            throw new InvalidConfigurationException(BayeuxServerConfig.CODEC.key(), config.codec(),
                    "the name of a codec on the class path: " + missing.getMessage());
        }
    }

    @Override
    public synchronized void start() {
        if (sweeper == null) {
            long period = config.sweepPeriod().toNanos();
            sweeper = scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
            clusterSeam.start();
            LOG.info("Bayeux server started: {}", config);
        }
    }

    @Override
    public synchronized void stop() {
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        clusterSeam.stop();
        sessions.removeAll();
        scheduler.shutdownNow();
        LOG.info("Bayeux server stopped");
    }

    @Override
    public CompletionStage<Void> drain(Duration retryInterval) {
        if (retryInterval.isNegative()) {
            throw new IllegalArgumentException("retryInterval=" + retryInterval + ": must be 0 or more");
        }
        if (draining.begin(retryInterval.toMillis())) {
            // A mesh leaves first: its peers' links into this node are not clients to hand off.
            clusterSeam.draining();
            int told = 0;
            for (ServerSession session : sessions.all()) {
                if (!session.isLocalSession() && ((ServerSessionImpl) session).handOff()) {
                    told++;
                }
            }
            if (clusterSeam.sessionStore().adopts()) {
                LOG.debug("Draining: remote sessions handed over to the nodes their clients reach next");
            } else {
                LOG.debug("Draining: {} held connects answered with handshake advice", told);
            }
            // A poll rather than a count kept on every removal: it costs nothing while the engine does not drain.
            synchronized (this) {
                drainWatch = scheduler.scheduleWithFixedDelay(this::checkDrained, 0, 50, TimeUnit.MILLISECONDS);
            }
        }
        return draining.drained().minimalCompletionStage();
    }

    private void checkDrained() {
        if (remoteSessionCount() == 0 && draining.drained().complete(null)) {
            synchronized (this) {
                drainWatch.cancel(false);
            }
        }
    }

    @Override
    public boolean isDraining() {
        return draining.isOn();
    }

    @Override
    public int remoteSessionCount() {
        int count = 0;
        for (ServerSession session : sessions.all()) {
            if (!session.isLocalSession()) {
                count++;
            }
        }
        return count;
    }

    private void sweep() {
        Callbacks.run("session sweep", sessions::sweep);
        Callbacks.run("channel sweep", channels::sweep);
    }

    // ---- the transport side ----------------------------------------------------------------------------------

    /**
     * Parses a batch received by a transport.
     *
     * @param json the body or frame text
     * @return the messages, in order
     * @throws BadBatchException if the batch cannot be processed at all
     */
    @Override
    public IncomingBatch parse(String json) throws BadBatchException {
        statistics.parsed(json.length());
        return new ParsedBatch(parseMessages(json));
    }

    /**
     * Parses a batch into the engine's messages, for the engine's own tests.
     *
     * @param json the batch
     * @return the messages, in order
     * @throws BadBatchException if the batch cannot be processed at all
     */
    List<ServerMessageImpl> parseMessages(String json) throws BadBatchException {
        List<ServerMessageImpl> batch;
        Limits.BatchCounter counter = limits.newBatchCounter();
        try {
            batch = codec.parseMessages(json, counter);
        } catch (MalformedJsonException malformed) {
            throw new BadBatchException(malformed.getMessage(), malformed);
        } catch (Limits.BatchLimitExceeded tooMany) {
            return limits.refuse(counter);
        }
        return checkBatch(batch);
    }

    /**
     * Parses a batch received by a transport as UTF-8 bytes.
     *
     * @param utf8 the bytes
     * @param offset where the body starts
     * @param length its length
     * @return the messages, in order
     * @throws BadBatchException if the batch cannot be processed at all
     */
    @Override
    public IncomingBatch parse(byte[] utf8, int offset, int length) throws BadBatchException {
        statistics.parsed(length);
        List<ServerMessageImpl> batch;
        Limits.BatchCounter counter = limits.newBatchCounter();
        try {
            batch = codec.parseMessages(utf8, offset, length, counter);
        } catch (MalformedJsonException malformed) {
            throw new BadBatchException(malformed.getMessage(), malformed);
        } catch (Limits.BatchLimitExceeded tooMany) {
            return new ParsedBatch(limits.refuse(counter));
        }
        return new ParsedBatch(checkBatch(batch));
    }

    private static List<ServerMessageImpl> checkBatch(List<ServerMessageImpl> batch) throws BadBatchException {
        if (batch.isEmpty()) {
            throw new BadBatchException("empty batch", null);
        }
        if (batch.size() > 1) {
            for (ServerMessageImpl message : batch) {
                if (Message.META_HANDSHAKE.equals(message.get(Message.CHANNEL_FIELD))) {
                    throw new BadBatchException("a handshake must be alone in its batch", null);
                }
            }
        }
        return batch;
    }

    @Override
    public CompletionStage<Void> handle(IncomingBatch batch, Carrier carrier) {
        if (!(batch instanceof ParsedBatch parsed)) {
            throw new IllegalArgumentException("not a batch parsed by this engine: " + batch);
        }
        return processor.handle(parsed.messages(), carrier);
    }

    /** Handles messages from an in-process session, which are not parsed. */
    CompletionStage<Void> handleMessages(List<ServerMessageImpl> messages, Carrier carrier) {
        return processor.handle(messages, carrier);
    }

    @Override
    public OutgoingMessages refuseHandshake(IncomingBatch handshake, String error, Map<String, Object> advice) {
        if (!(handshake instanceof ParsedBatch parsed) || !parsed.isHandshake()) {
            throw new IllegalArgumentException("not a handshake parsed by this engine: " + handshake);
        }
        ServerMessageImpl reply = Outcome.replyTo(parsed.messages().get(0));
        reply.setSuccessful(false);
        reply.setError(error);
        statistics.handshakeRefused(error);
        reply.put(Message.ADVICE_FIELD, new HashMap<>(advice));
        reply.freeze();
        return encoded(List.of(reply));
    }

    /**
     * @param messages messages for a carrier, frozen, in order
     * @return them with their bytes, as carriers take them
     */
    public OutgoingMessages encoded(List<? extends ServerMessage> messages) {
        return new Deliveries(messages, codec);
    }

    /**
     * Encodes messages as one JSON array, as carriers receive them ({@link OutgoingMessages#toJson()}).
     *
     * @param messages the messages
     * @return the UTF-8 JSON array; may be shared: callers must never change it
     */
    public byte[] toJson(List<? extends ServerMessage> messages) {
        return Deliveries.encode(messages, codec);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        try {
            return scheduler.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            return null;
        }
    }

    @Override
    public <T> T transportPart(Class<T> type, java.util.function.Supplier<? extends T> factory) {
        return type.cast(transportParts.computeIfAbsent(type, ignored -> factory.get()));
    }

    @Override
    public QueueLimitCounters queueLimitCounters() {
        return queueLimitCounters;
    }

    @Override
    public void carrierFailed(ServerSession session, Carrier carrier) {
        ((ServerSessionImpl) session).carrierFailed(carrier);
    }

    @Override
    public long getForeignClientIdCount() {
        return sessions.foreignClientIdCount();
    }

    @Override
    public void bindToBrowser(ServerSession session, String browserId) {
        if (browserId != null && session instanceof ServerSessionImpl impl && impl.settings().bindToBrowser(browserId)) {
            storeChanged(impl);
        }
    }

    /** A session's binding changed: a store that lets other nodes adopt it must know, the rest ignore it. */
    private void storeChanged(ServerSessionImpl session) {
        if (sessions.get(session.getId()) == session) {
            clusterSeam.sessionStore().changed(session);
        }
    }

    @Override
    public boolean isBoundToBrowser(ServerSession session) {
        return session instanceof ServerSessionImpl impl && impl.settings().isBoundToBrowser();
    }

    @Override
    public boolean isBrowserOf(ServerSession session, String cookie) {
        return session instanceof ServerSessionImpl impl && impl.settings().isBrowser(cookie);
    }

    @Override
    public String browserOf(ServerSession session) {
        return session instanceof ServerSessionImpl impl ? impl.settings().browserId() : null;
    }

    @Override
    public void browserCookieShown(ServerSession session) {
        if (session instanceof ServerSessionImpl impl && impl.settings().browserCookieShown()) {
            storeChanged(impl);
        }
    }

    @Override
    public boolean hasShownBrowserCookie(ServerSession session) {
        return session instanceof ServerSessionImpl impl && impl.settings().hasShownBrowserCookie();
    }

    @Override
    public void pinToHandshakeCarrier(ServerSession session) {
        if (session instanceof ServerSessionImpl impl) {
            impl.settings().requestPin();
        }
    }

    @Override
    public boolean isPinned(ServerSession session) {
        return session instanceof ServerSessionImpl impl && impl.settings().isPinRequested();
    }

    @Override
    public boolean isConnectHeld(ServerSession session) {
        return ((ServerSessionImpl) session).holdsConnect();
    }

    @Override
    public void setTransportNames(List<String> names) {
        transportNames.set(names);
    }

    // ---- parts -----------------------------------------------------------------------------------------------

    /** @return this engine: it provides the services its transports share */
    @Override
    public TransportServices services() {
        return this;
    }

    /** @return this engine: it keeps the bindings, which outlive every carrier */
    @Override
    public ClientBindings bindings() {
        return this;
    }

    @Override
    public BayeuxServerConfig getConfig() {
        return config;
    }

    @Override
    public EngineStatistics statistics() {
        return statistics;
    }

    @Override
    public LimitCounters getLimitCounters() {
        return limits.counters();
    }

    /** @return the JSON codec in use */
    public JsonCodec getCodec() {
        return codec;
    }

    ChannelRegistry channels() {
        return channels;
    }

    @Override
    public synchronized void setCluster(Cluster cluster) {
        if (sweeper != null) {
            throw new IllegalStateException("the cluster is set before the engine starts");
        }
        clusterSeam.install(cluster);
    }

    @Override
    public synchronized void setSessionStore(SessionStore store) {
        if (sweeper != null) {
            throw new IllegalStateException("the session store is set before the engine starts");
        }
        clusterSeam.install(store);
        // Told when a write of the store was fenced: another node adopted the session meanwhile.
        store.onMoved(this::moved);
    }

    private void moved(String sessionId) {
        if (sessions.moved(sessionId)) {
            statistics.sessionMoved();
        }
    }

    @Override
    public SessionStore getSessionStore() {
        return clusterSeam.sessionStore();
    }

    @Override
    public Presence presence() {
        Presence clustered = clusterSeam.presence();
        if (clustered != null) {
            return clustered;
        }
        synchronized (this) {
            if (singleNodePresence == null) {
                // Built on first use: until someone asks, no subscription pays for presence.
                SingleNodePresence created = new SingleNodePresence(channels::get);
                events.subscriptionListeners().add(created.subscriptions());
                singleNodePresence = created;
            }
            return singleNodePresence;
        }
    }

    @Override
    public void addClusterListener(ClusterListener listener) {
        clusterSeam.listeners().add(listener);
    }

    @Override
    public void removeClusterListener(ClusterListener listener) {
        clusterSeam.listeners().remove(listener);
    }

    private Publisher publisher() {
        return publisher;
    }

    private MessageProcessor processor() {
        return processor;
    }

    // ---- BayeuxServer ----------------------------------------------------------------------------------------

    @Override
    public ServerChannel getChannel(String name) {
        ChannelId.of(name);
        return channels.get(name);
    }

    @Override
    public ServerChannel createChannelIfAbsent(String name, ServerChannel.Initializer... initializers) {
        return channels.createIfAbsent(ChannelId.of(name), initializers);
    }

    @Override
    public Collection<ServerChannel> getChannels() {
        return channels.all();
    }

    @Override
    public ServerSession getSession(String id) {
        return sessions.get(id);
    }

    @Override
    public Collection<ServerSession> getSessions() {
        return sessions.all();
    }

    @Override
    public LocalSession newLocalSession(String idHint) {
        return new LocalSessionImpl(processor, sessions, idHint);
    }

    @Override
    public ServerMessage.Mutable newMessage() {
        return new ServerMessageImpl();
    }

    @Override
    public Set<String> getTransportNames() {
        return java.util.Collections.unmodifiableSet(transportNames.advertised());
    }

    @Override
    public void addExtension(ServerExtension extension) {
        extensions.add(extension);
    }

    @Override
    public void removeExtension(ServerExtension extension) {
        extensions.remove(extension);
    }

    @Override
    public List<ServerExtension> getExtensions() {
        return extensions.list();
    }

    @Override
    public void addSessionListener(SessionListener listener) {
        events.sessionListeners().add(listener);
    }

    @Override
    public void removeSessionListener(SessionListener listener) {
        events.sessionListeners().remove(listener);
    }

    @Override
    public void addSessionAdoptionListener(SessionAdoptionListener listener) {
        events.adoptionListeners().add(listener);
    }

    @Override
    public void removeSessionAdoptionListener(SessionAdoptionListener listener) {
        events.adoptionListeners().remove(listener);
    }

    @Override
    public void addPortableAttribute(String name) {
        portableAttributes.add(name);
    }

    @Override
    public void addChannelListener(ChannelListener listener) {
        events.channelListeners().add(listener);
    }

    @Override
    public void removeChannelListener(ChannelListener listener) {
        events.channelListeners().remove(listener);
    }

    @Override
    public void addSubscriptionListener(SubscriptionListener listener) {
        events.subscriptionListeners().add(listener);
    }

    @Override
    public void removeSubscriptionListener(SubscriptionListener listener) {
        events.subscriptionListeners().remove(listener);
    }

    @Override
    public SecurityPolicy getSecurityPolicy() {
        return security.policy();
    }

    @Override
    public void setSecurityPolicy(SecurityPolicy policy) {
        security.setPolicy(policy);
    }
}
