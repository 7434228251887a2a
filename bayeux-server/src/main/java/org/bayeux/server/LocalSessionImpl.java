package org.bayeux.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.bayeux.api.server.LocalSession;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.support.Attributes;
import org.bayeux.server.internal.Callbacks;
import org.bayeux.server.transport.Carrier;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.OutgoingMessages;

/**
 * A client inside the server. Its requests take the same path as a remote client's (extensions, security, meta
 * handlers), with no JSON; its replies and deliveries come back as method calls.
 */
final class LocalSessionImpl implements LocalSession {
    static final String IN_PROCESS = "in-process";

    private final MessageProcessor processor;
    private final SessionRegistry sessions;
    private final String idHint;
    private final LocalCarrier carrier = new LocalCarrier();
    private final AtomicLong nextId = new AtomicLong();
    private final Map<String, MessageListener> replyCallbacks = new ConcurrentHashMap<>();
    private final Map<String, MessageListener> remoteCalls = new ConcurrentHashMap<>();
    private final Map<String, LocalSessionChannel> channels = new ConcurrentHashMap<>();
    private final List<Extension> extensions = new CopyOnWriteArrayList<>();
    private final Attributes attributes = new Attributes();
    private volatile ServerSessionImpl serverSession;
    private int batchDepth;
    private List<ServerMessageImpl> batched = new ArrayList<>();

    LocalSessionImpl(MessageProcessor processor, SessionRegistry sessions, String idHint) {
        this.processor = processor;
        this.sessions = sessions;
        this.idHint = idHint;
    }

    String idHint() {
        return idHint;
    }

    @Override
    public ServerSession getServerSession() {
        return serverSession;
    }

    @Override
    public String getId() {
        ServerSessionImpl session = serverSession;
        return session == null ? null : session.getId();
    }

    @Override
    public boolean isHandshook() {
        ServerSessionImpl session = serverSession;
        return session != null && session.isHandshook();
    }

    @Override
    public boolean isConnected() {
        ServerSessionImpl session = serverSession;
        return session != null && session.isConnected();
    }

    @Override
    public void handshake(Map<String, Object> template, MessageListener callback) {
        ServerMessageImpl handshake = template == null ? new ServerMessageImpl() : new ServerMessageImpl(template);
        handshake.setChannel(Message.META_HANDSHAKE);
        handshake.put(Message.VERSION_FIELD, "1.0");
        handshake.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, List.of(IN_PROCESS));
        send(handshake, callback);
    }

    @Override
    public void disconnect(MessageListener callback) {
        ServerMessageImpl disconnect = new ServerMessageImpl();
        disconnect.setChannel(Message.META_DISCONNECT);
        send(disconnect, callback);
    }

    @Override
    public ClientSessionChannel getChannel(String name) {
        return channels.computeIfAbsent(ChannelId.of(name).name(), n -> new LocalSessionChannel(this, ChannelId.of(n)));
    }

    @Override
    public void remoteCall(String target, Object data, MessageListener callback) {
        ServerMessageImpl request = new ServerMessageImpl();
        request.setChannel(target);
        request.setData(data);
        String id = newId();
        request.setId(id);
        remoteCalls.put(id, callback);
        send(request, null);
    }

    /**
     * Sends a message as this client: gives it an id and the session id, runs the client extensions, and hands it
     * to the engine (or keeps it for the end of the batch).
     */
    void send(ServerMessageImpl message, MessageListener callback) {
        if (message.getId() == null) {
            message.setId(newId());
        }
        ServerSessionImpl session = serverSession;
        if (session != null) {
            message.setClientId(session.getId());
        }
        if (callback != null) {
            replyCallbacks.put(message.getId(), callback);
        }
        for (Extension extension : extensions) {
            boolean keep = Callbacks.test(extension, () -> message.isMeta() ? extension.sendMeta(this, message)
                    : extension.send(this, message), true);
            if (!keep) {
                replyCallbacks.remove(message.getId());
                return;
            }
        }
        synchronized (this) {
            if (batchDepth > 0) {
                batched.add(message);
                return;
            }
        }
        processor.handle(List.of(message), carrier);
    }

    private String newId() {
        return String.valueOf(nextId.incrementAndGet());
    }

    /** Receives a reply from the engine. */
    private void receiveReply(ServerMessage reply) {
        Message.Mutable message = new MapMessage(reply);
        for (Extension extension : extensions) {
            boolean keep = Callbacks.test(extension, () -> message.isMeta() ? extension.rcvMeta(this, message)
                    : extension.rcv(this, message), true);
            if (!keep) {
                return;
            }
        }
        if (Message.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()) {
            serverSession = sessions.get(message.getClientId());
        }
        Message view = MapMessage.readOnly(message);
        String id = message.getId();
        MessageListener callback = id == null ? null : replyCallbacks.remove(id);
        if (callback == null && id != null && !message.isSuccessful()) {
            callback = remoteCalls.remove(id);
        }
        LocalSessionChannel channel = message.getChannel() == null ? null : channels.get(message.getChannel());
        if (callback != null) {
            MessageListener call = callback;
            ClientSessionChannel on = channel != null ? channel : getChannel(message.getChannel());
            Callbacks.run(call, () -> call.onMessage(on, view));
        }
        if (channel != null) {
            channel.notifyListeners(view);
        }
    }

    /** Receives a delivery queued for this client's server session. */
    void receive(ServerMessage delivery) {
        Message.Mutable message = extensions.isEmpty() ? null : new MapMessage(delivery);
        for (Extension extension : extensions) {
            if (!Callbacks.test(extension, () -> extension.rcv(this, message), true)) {
                return;
            }
        }
        Message view = message == null ? delivery : MapMessage.readOnly(message);
        String id = view.getId();
        MessageListener answer = id == null ? null : remoteCalls.remove(id);
        if (answer != null) {
            Callbacks.run(answer, () -> answer.onMessage(getChannel(view.getChannel()), view));
            return;
        }
        ChannelId channelId = ChannelId.of(view.getChannel());
        dispatch(channels.get(channelId.name()), view);
        for (String wildcard : channelId.wildcardNames()) {
            dispatch(channels.get(wildcard), view);
        }
    }

    private static void dispatch(LocalSessionChannel channel, Message message) {
        if (channel != null) {
            channel.notifySubscribers(message);
            channel.notifyListeners(message);
        }
    }

    @Override
    public void startBatch() {
        synchronized (this) {
            batchDepth++;
        }
    }

    @Override
    public boolean endBatch() {
        List<ServerMessageImpl> toSend;
        synchronized (this) {
            if (batchDepth == 0 || --batchDepth > 0) {
                return false;
            }
            toSend = batched;
            batched = new ArrayList<>();
        }
        if (!toSend.isEmpty()) {
            processor.handle(toSend, carrier);
        }
        return true;
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

    @Override
    public String toString() {
        return "LocalSession[" + getId() + "]";
    }

    /** The in-process carrier of a local session: replies come back as calls, deliveries bypass the queue. */
    final class LocalCarrier implements Carrier {
        /** Holds no connect, pushes nothing while held, takes no piggyback: replies come back as calls. */
        private static final CarrierCapabilities CAPABILITIES = CarrierCapabilities.of(IN_PROCESS);

        LocalSessionImpl session() {
            return LocalSessionImpl.this;
        }

        @Override
        public CarrierCapabilities capabilities() {
            return CAPABILITIES;
        }

        @Override
        public void send(OutgoingMessages messages) {
            for (int i = 0, n = messages.size(); i < n; i++) {
                ServerMessage message = messages.get(i);
                if (message.isReply()) {
                    receiveReply(message);
                } else {
                    receive(message);
                }
            }
        }
    }
}
