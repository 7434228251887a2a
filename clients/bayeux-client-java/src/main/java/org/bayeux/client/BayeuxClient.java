package org.bayeux.client;

import java.net.CookieStore;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.api.support.Attributes;
import org.bayeux.client.ext.RecoveryExtension;
import org.bayeux.client.transport.ClientCookies;
import org.bayeux.client.transport.TransportContext;

/**
 * A Bayeux client: a session with a Bayeux server (ours, CometD's, or any other) over WebSocket or long-polling.
 *
 * <pre>{@code
 * BayeuxClient client = new BayeuxClient("http://localhost:8080/bayeux");
 * client.handshake(Duration.ofSeconds(10));
 * client.getChannel("/chat/room").subscribe((channel, message) -> System.out.println(message.getData()), null);
 * client.getChannel("/chat/room").publish(Map.of("text", "hello"), null);
 * ...
 * client.close();
 * }</pre>
 *
 * <p><b>Life.</b> {@link #handshake()} starts the session; the client then keeps a {@code /meta/connect} going by
 * itself, paced by the server's advice, backs off after failures, handshakes again when the server has lost the
 * session (and subscribes again, unless {@link BayeuxClientConfig#autoResubscribe()} is off), and stops on
 * {@link #disconnect()} or when the server says {@code reconnect:"none"}. {@link #getState()} tells where it is.</p>
 *
 * <p><b>Threads.</b> The client has no thread of its own: it runs on the {@link ClientResources} it is given, or
 * on resources of its own that {@link #close()} releases. Listeners, callbacks and extensions run on the I/O
 * threads, one message after another for each client; a transport reads nothing more for this client until they
 * return. A slow listener therefore slows this client's reading, not its memory: the messages wait on the server,
 * whose queue limit applies. Listeners must not block on the client itself (for example call
 * {@link #handshake(Duration)}) and should hand slow work to an executor of their own. A listener that throws is
 * logged and the client carries on.</p>
 *
 * <p><b>Messages before a session.</b> Messages sent while the client handshakes wait for the session, then go;
 * messages sent while it is disconnected fail at once with {@link ClientErrors#NOT_CONNECTED}. At most
 * {@link BayeuxClientConfig#maxPendingMessages()} messages may wait for a reply at once; more fail with
 * {@link ClientErrors#TOO_MANY_PENDING}.</p>
 */
public final class BayeuxClient implements ClientSession, AutoCloseable {
    /** Where the client is in its life. */
    public enum State {
        /** No session: before the first handshake, after a disconnect, or after the server said stop. */
        DISCONNECTED,
        /** The first handshake is on its way, or waits for its back-off. */
        HANDSHAKING,
        /** The session was lost; a new handshake is on its way, or waits for its back-off. */
        REHANDSHAKING,
        /** The handshake succeeded; the first connect is on its way. */
        HANDSHAKEN,
        /** The last connect succeeded. */
        CONNECTED,
        /** The last connect failed; the session may still live on the server, and the client tries again. */
        UNCONNECTED,
        /** The disconnect is on its way. */
        DISCONNECTING
    }

    /**
     * Told of each change of a client's {@link State}.
     */
    @FunctionalInterface
    public interface StateListener {
        /**
         * @param client the client
         * @param state its new state
         */
        void onStateChange(BayeuxClient client, State state);
    }

    private static final Set<State> HANDSHOOK = EnumSet.of(State.HANDSHAKEN, State.CONNECTED, State.UNCONNECTED);

    private final BayeuxClientConfig config;
    private final ClientResources resources;
    private final boolean ownsResources;
    private final ClientCookies cookies = new ClientCookies();
    private final List<Extension> extensions = new CopyOnWriteArrayList<>();
    private final RecoveryExtension recovery;
    private final Attributes attributes = new Attributes();
    private final ChannelTable channels;
    private final Outbox outbox;
    private final SessionLoop loop;

    /**
     * A client with the default configuration and resources of its own.
     *
     * @param url the server's Bayeux endpoint, http or https
     */
    public BayeuxClient(String url) {
        this(BayeuxClientConfig.builder(url).build());
    }

    /**
     * A client with resources of its own, released by {@link #close()}.
     *
     * @param config the configuration
     */
    public BayeuxClient(BayeuxClientConfig config) {
        this(config, ClientResources.builder().build(), true);
    }

    /**
     * A client on shared resources, which it does not release.
     *
     * @param config the configuration
     * @param resources the resources, shared with other clients
     */
    public BayeuxClient(BayeuxClientConfig config, ClientResources resources) {
        this(config, resources, false);
    }

    private BayeuxClient(BayeuxClientConfig config, ClientResources resources, boolean ownsResources) {
        this.config = config;
        this.resources = resources;
        this.ownsResources = ownsResources;
        // Each part gets its collaborators here, once; none reaches back through this facade. The parts that call
        // each other both ways (the channels, the outbox, the inbox and the loop) are bound right after.
        RequestHeaders requestHeaders = new RequestHeaders(config.requestHeaders());
        PendingReplies pending = new PendingReplies(config.maxPendingMessages());
        this.channels = new ChannelTable(this);
        Inbox inbox = new Inbox(this, extensions, pending, channels);
        RecoveryHost host = new RecoveryHost(inbox, resources);
        // A gap is held open at most twice the longest wait for a reply: its subscribe's reply (or the failure the
        // client makes for it) comes within one, the missed messages right after it.
        this.recovery = config.recovery()
                ? new RecoveryExtension(host, config.maxNetworkDelay().multipliedBy(2),
                        RecoveryExtension.DEFAULT_MAX_HELD, config.recoveryMaxChannels())
                : null;
        if (recovery != null) {
            extensions.add(recovery);
        }
        TransportContext context = new TransportContext(config.url(), resources, resources.codec(config.codec()),
                cookies, requestHeaders::snapshot, config.maxIncomingMessageBytes(), inbox);
        Transports transports = new Transports(config.transports(), context);
        this.outbox = new Outbox(this, extensions, pending, inbox, resources, config);
        this.loop = new SessionLoop(this, config, resources, requestHeaders, transports, outbox, inbox, pending,
                channels);
        channels.bind(outbox);
        outbox.bind(loop);
        inbox.bind(loop);
        inbox.bind(recovery);
        host.bind(outbox);
    }

    // ---- Session ----

    /** @return the session id the server gave, or null without a session */
    @Override
    public String getId() {
        return loop.clientId();
    }

    @Override
    public boolean isHandshook() {
        return HANDSHOOK.contains(loop.state());
    }

    @Override
    public boolean isConnected() {
        return loop.state() == State.CONNECTED;
    }

    /** @return where the client is in its life */
    public State getState() {
        return loop.state();
    }

    /** @return the transport chosen at the last handshake ({@code websocket} or {@code long-polling}), or null */
    public String getTransportName() {
        return loop.transportName();
    }

    /**
     * Starts the handshake; the client then connects, and keeps connecting, by itself.
     *
     * @param template extra fields for the handshake message (for example {@code ext} with credentials), or null
     * @param callback called with the reply to the first handshake attempt (the client retries a failed one
     *                 by itself, and {@code /meta/handshake} listeners see every attempt), or null
     * @throws IllegalStateException if the client is not {@link State#DISCONNECTED}
     */
    @Override
    public void handshake(Map<String, Object> template, MessageListener callback) {
        loop.handshake(template, callback);
    }

    /**
     * Starts the handshake.
     *
     * @param template extra fields for the handshake message, or null
     * @return the reply to the first handshake attempt
     * @throws IllegalStateException if the client is not {@link State#DISCONNECTED}
     */
    public CompletableFuture<Message> handshakeAsync(Map<String, Object> template) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        handshake(template, (channel, message) -> reply.complete(message));
        return reply;
    }

    /**
     * Handshakes and waits until the client is connected, or has given up.
     *
     * @param timeout the longest wait
     * @return the state reached: {@link State#CONNECTED}, {@link State#DISCONNECTED}, or whatever state the client is
     *         in when the time is up
     * @throws InterruptedException if the thread is interrupted
     * @throws IllegalStateException if the client is not {@link State#DISCONNECTED}
     */
    public State handshake(Duration timeout) throws InterruptedException {
        handshake(null, null);
        waitFor(timeout, State.CONNECTED, State.DISCONNECTED);
        return getState();
    }

    /**
     * Ends the session: sends {@code /meta/disconnect}, then closes the connections. Does nothing if there is no
     * session; stops a handshake in progress.
     *
     * @param callback called with the disconnect reply (or a local one), or null
     */
    @Override
    public void disconnect(MessageListener callback) {
        loop.disconnect(callback);
    }

    /** @return the disconnect reply (or a local one) */
    public CompletableFuture<Message> disconnectAsync() {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        disconnect((channel, message) -> reply.complete(message));
        return reply;
    }

    /**
     * Disconnects and waits until the client is {@link State#DISCONNECTED}.
     *
     * @param timeout the longest wait
     * @return true if the client is disconnected
     * @throws InterruptedException if the thread is interrupted
     */
    public boolean disconnect(Duration timeout) throws InterruptedException {
        disconnect((MessageListener) null);
        return waitFor(timeout, State.DISCONNECTED);
    }

    /**
     * Blocks until the client is in one of the given states.
     *
     * @param timeout the longest wait
     * @param state a state to wait for
     * @param more other states that end the wait
     * @return true if the client is in one of the states; false if the time ran out
     * @throws InterruptedException if the thread is interrupted
     */
    public boolean waitFor(Duration timeout, State state, State... more) throws InterruptedException {
        return loop.waitFor(timeout, EnumSet.of(state, more));
    }

    /**
     * @param listener told of every state change, on the thread that made it, just after the change (a listener
     *                 added right after {@link #getState()} shows a change may still be told of that change)
     */
    public void addStateListener(StateListener listener) {
        loop.addStateListener(listener);
    }

    /**
     * @param listener the listener to remove
     */
    public void removeStateListener(StateListener listener) {
        loop.removeStateListener(listener);
    }

    // ---- Channels and messages ----

    /**
     * @param name the channel name
     * @return this client's handle on the channel; the same handle for the same name
     * @throws IllegalArgumentException if the name is not a valid channel name
     */
    @Override
    public BayeuxClientChannel getChannel(String name) {
        return channels.get(name);
    }

    /**
     * Calls a service, waiting {@link BayeuxClientConfig#remoteCallTimeout()} at most for its answer.
     *
     * @param target the service channel, for example {@code /service/echo}
     * @param data the request payload
     * @param callback called once with the answer, or with a failure ({@link ClientErrors#TIMEOUT} when no answer
     *                 came in time)
     */
    @Override
    public void remoteCall(String target, Object data, MessageListener callback) {
        remoteCall(target, data, config.remoteCallTimeout(), callback);
    }

    /**
     * Calls a service.
     *
     * @param target the service channel, for example {@code /service/echo}
     * @param data the request payload
     * @param timeout how long to wait for the answer
     * @param callback called once with the answer, or with a failure
     * @throws IllegalArgumentException if the target is not a plain channel outside {@code /meta/}
     */
    public void remoteCall(String target, Object data, Duration timeout, MessageListener callback) {
        ChannelId id = ChannelId.of(target);
        if (id.isMeta() || id.isWildcard()) {
            throw new IllegalArgumentException("Cannot call " + target + ": not a meta channel nor a wildcard");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The remote call timeout must be above 0, not " + timeout);
        }
        MapMessage request = MapMessage.on(id.name());
        request.setData(data);
        outbox.submitRemoteCall(request, callback, timeout);
    }

    /**
     * Calls a service.
     *
     * @param target the service channel
     * @param data the request payload
     * @param timeout how long to wait for the answer
     * @return the answer, or a failure
     */
    public CompletableFuture<Message> remoteCallAsync(String target, Object data, Duration timeout) {
        CompletableFuture<Message> answer = new CompletableFuture<>();
        remoteCall(target, data, timeout, (channel, message) -> answer.complete(message));
        return answer;
    }

    @Override
    public void startBatch() {
        outbox.startBatch();
    }

    /**
     * @return true if this ended the outermost batch, whose messages are then sent together
     * @throws IllegalStateException if no batch is open
     */
    @Override
    public boolean endBatch() {
        return outbox.endBatch();
    }

    // ---- Extensions ----

    /**
     * @return the recovery extension the client added by itself (positions per channel, outcome of the last
     *         recovery), or empty if {@link BayeuxClientConfig#recovery()} is off
     */
    public Optional<RecoveryExtension> getRecovery() {
        return Optional.ofNullable(recovery);
    }

    @Override
    public void addExtension(Extension extension) {
        extensions.add(extension);
    }

    @Override
    public void removeExtension(Extension extension) {
        extensions.remove(extension);
    }

    @Override
    public List<Extension> getExtensions() {
        return List.copyOf(extensions);
    }

    // ---- HTTP ----

    /**
     * @return this client's cookies: kept from the server's responses, sent with every request and upgrade; add
     *         to it to send cookies of your own
     */
    public CookieStore getCookieStore() {
        return cookies.store();
    }

    // ---- Attributes ----

    @Override
    public Object getAttribute(String name) {
        return attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        attributes.set(name, value);
    }

    @Override
    public Object removeAttribute(String name) {
        return attributes.remove(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        return attributes.names();
    }

    // ---- Resources ----

    /** @return the configuration */
    public BayeuxClientConfig getConfig() {
        return config;
    }

    /**
     * Disconnects, waiting for the reply at most {@link BayeuxClientConfig#maxNetworkDelay()}, and releases the
     * client's own resources (shared ones stay).
     */
    @Override
    public void close() {
        try {
            disconnect(config.maxNetworkDelay());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } finally {
            if (ownsResources) {
                resources.close();
            }
        }
    }

    @Override
    public String toString() {
        return "BayeuxClient[" + config.url() + ", " + getState() + ", " + getId() + "]";
    }
}
