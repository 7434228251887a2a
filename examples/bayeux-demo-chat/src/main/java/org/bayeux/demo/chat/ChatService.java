package org.bayeux.demo.chat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.Promise;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.server.BayeuxService;
import org.bayeux.server.cluster.Presence;
import org.bayeux.server.cluster.PresenceEntry;
import org.bayeux.server.cluster.PresenceEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of the demo chat: names, rooms and their members, and private messages.
 *
 * <ul>
 *   <li>A client names itself in its handshake: {@code "ext":{"chat":{"name":"Ann"}}}. A re-handshake (after a
 *       server restart, say) carries the name again, so nothing else has to be replayed.</li>
 *   <li>Subscribing to {@code /chat/room/<room>} joins the room; unsubscribing, or the end of the session, leaves
 *       it. After each change the service delivers {@code {"type":"members","room":…,"members":[…],"version":n}} to
 *       the room's subscribers, so a client's own automatic re-subscription brings it back into the member lists. Two
 *       changes made at once on two threads may reach a client in either order: {@code version} grows with every
 *       change, so a client keeps the list of the highest version it has seen (since its handshake: the versions
 *       of a restarted server start again).</li>
 *   <li>Clients publish {@code {"text":…}} on a room's channel; the service stamps the sender's name
 *       ({@code {"type":"message","room":…,"from":…,"text":…,"time":ms,"id":…}}: {@code time} the server's clock in
 *       milliseconds since the epoch, {@code id} unique), so nobody can speak for someone else, and refuses messages
 *       from unnamed sessions.</li>
 *   <li>The service keeps the last messages of each room ({@link ChatHistory}: 50 messages and 32 KiB per room, 256
 *       rooms); whoever joins a room gets them, oldest first, in one {@code {"type":"history","room":…,
 *       "messages":[…]}} on the room's channel, delivered to that session only. Remote call
 *       {@code /service/chat/history} with {@code {"room":…}} answers the same (a reloaded page's session is already
 *       in its rooms, so it joins nothing and asks).</li>
 *   <li>Remote call {@code /service/chat/members} with {@code {"room":…}} answers the room's members, as
 *       {@code {"type":"members","room":…,"members":[…],"version":n}}.</li>
 *   <li>Remote call {@code /service/chat/private} with {@code {"to":name,"text":…}} delivers
 *       {@code {"type":"private","from":…,"to":…,"text":…,"time":ms}} on {@code /chat/private} to every session of
 *       that name, and answers {@code {"delivered":n}}.</li>
 * </ul>
 *
 * <p>Rooms, names and private messages go through the engine's presence seam ({@link Presence}), the same on a
 * single node, on an Oort mesh and on a Redis backplane: a name is the user tied to its session at handshake, a room's
 * members are the names of the sessions subscribed to its channel on every node (sorted, each once), and every join
 * or leave of a room on any node makes this node send its own subscribers of the room the new list, with its own
 * growing version (so a client's versions come from one node). A private message reaches the name's sessions on this
 * node at once and, when the name is present, travels to the other nodes on {@value #PRIVATE_CHANNEL}, a channel only
 * the server's sessions may use ({@code delivered} is how many sessions here got it, or 1 if none here but the name
 * is present elsewhere, else 0). Room messages themselves cross the nodes by the cluster's forwarding of
 * {@code /chat/room/*}. The history is kept by every node from the room messages it receives (its local session
 * subscribes to {@code /chat/room/*}, so it also receives those the cluster forwards): a node started after some
 * messages were sent does not have them.</p>
 *
 * <p>Presence that a backplane answers from Redis comes later: the member lists then follow the events by a read, the
 * members call and {@link #members} answer the list of the room's last read, and the private call whether the name
 * was present at the last user event.</p>
 */
public final class ChatService extends BayeuxService {
    /** The session attribute holding the chat name. */
    public static final String NAME_ATTRIBUTE = "chat.name";
    private static final Logger LOG = LoggerFactory.getLogger(ChatService.class);
    /** The prefix of room channels. */
    public static final String ROOM_PREFIX = "/chat/room/";
    static final int MAX_NAME_LENGTH = 32;
    static final int MAX_TEXT_LENGTH = 2000;
    private static final Pattern ROOM_NAME = Pattern.compile("[A-Za-z0-9_\\-]{1,40}");

    /** Where private messages for other nodes' sessions travel: the server's own sessions only. */
    public static final String PRIVATE_CHANNEL = "/chat-cluster/private";
    private static final String CLUSTER_PREFIX = "/chat-cluster/";
    private static final ChannelId PRIVATE_ID = ChannelId.of(PRIVATE_CHANNEL);

    private final Presence presence;
    private final ChatHistory history;
    /** How many member-list changes this node has seen, in all rooms. Guarded by {@link #lists}. */
    private long membersVersion;
    /** Each room's names as last read, for a presence answered later. Guarded by itself. */
    private final Map<String, List<String>> lists = new HashMap<>();
    /** The users present as last read, for a presence answered later. */
    private volatile Set<String> users = Set.of();

    /**
     * @param server the server to serve
     * @param presence who is here: the engine's ({@code engine.presence()})
     */
    public ChatService(BayeuxServer server, Presence presence) {
        this(server, presence, new ChatHistory());
    }

    /**
     * @param server the server to serve
     * @param presence who is here: the engine's ({@code engine.presence()})
     * @param history where the last messages of the rooms are kept
     */
    public ChatService(BayeuxServer server, Presence presence, ChatHistory history) {
        super(server, "chat");
        this.presence = presence;
        this.history = history;
        server.setSecurityPolicy(new Guard(server.getSecurityPolicy()));
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                String name = nameIn(handshake);
                if (name != null) {
                    session.setAttribute(NAME_ATTRIBUTE, name);
                    presence.associate(name, session);
                }
            }
        });
        presence.addListener(this::changed);
        server.createChannelIfAbsent(ROOM_PREFIX + "*", channel -> channel.setPersistent(true))
                .addMessageListener(this::stampChatMessage);
        addService("/service/chat/members", (requester, request) -> {
            String room = roomIn(request);
            return membersMessage(room);
        });
        addService("/service/chat/private", this::sendPrivate);
        addService("/service/chat/history", (requester, request) -> historyMessage(roomIn(request)));
        // Every room message, published here or forwarded by the cluster, reaches this subscription once stamped.
        getLocalSession().getChannel(ROOM_PREFIX + "*").subscribe(this::remember, null);
        getLocalSession().getChannel(PRIVATE_CHANNEL).subscribe(this::onPrivate, null);
        presence.userIds().thenAccept(present -> users = present);
    }

    /**
     * A join or a leave on some node: a named session's of a room makes this node's subscribers of the room get the
     * new list (the joiner, if it is on this node, the room's history first); a user's refreshes the users present.
     */
    private void changed(PresenceEvent event) {
        if (event.channel() == null) {
            presence.userIds().thenAccept(present -> users = present);
            return;
        }
        String room = roomOf(event.channel());
        if (room == null || event.entry().userId() == null) {
            return;
        }
        if (event.joined() && event.on(presence.nodeId())) {
            ServerSession joiner = getServer().getSession(event.entry().sessionId());
            if (joiner != null && nameOf(joiner) != null) {
                sendHistory(room, joiner);
            }
        }
        long version;
        synchronized (lists) {
            version = ++membersVersion;
        }
        presence.members(ROOM_PREFIX + room).thenAccept(entries -> {
            List<String> names = names(entries);
            synchronized (lists) {
                lists.put(room, names);
            }
            publishMembers(room, names, version);
        }).exceptionally(failure -> {
            LOG.debug("The members of room {} could not be read: {}", room, failure.toString());
            return null;
        });
    }

    private static List<String> names(List<PresenceEntry> entries) {
        Set<String> names = new TreeSet<>();
        for (PresenceEntry entry : entries) {
            if (entry.userId() != null) {
                names.add(entry.userId());
            }
        }
        return new ArrayList<>(names);
    }

    private boolean stampChatMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        if (sender == null || sender == getLocalSession().getServerSession()) {
            return true;
        }
        String name = nameOf(sender);
        String room = roomOf(message.getChannel());
        String text = textIn(message);
        if (name == null || room == null || text == null) {
            return false;
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("type", "message");
        data.put("room", room);
        data.put("from", name);
        data.put("text", text);
        data.put("time", System.currentTimeMillis());
        data.put("id", UUID.randomUUID().toString());
        message.setData(data);
        return true;
    }

    private void remember(ClientSessionChannel channel, Message message) {
        String room = roomOf(message.getChannel());
        Map<String, Object> data = message.getDataAsMap();
        if (room == null || data == null || !"message".equals(data.get("type"))
                || !(data.get("from") instanceof String from) || !(data.get("text") instanceof String text)
                || !(data.get("time") instanceof Number time) || !(data.get("id") instanceof String id)) {
            return;
        }
        // A copy of the known fields only: another node's message is kept as this node would have made it.
        Map<String, Object> kept = new LinkedHashMap<>();
        kept.put("type", "message");
        kept.put("room", room);
        kept.put("from", from);
        kept.put("text", text.length() > MAX_TEXT_LENGTH ? text.substring(0, MAX_TEXT_LENGTH) : text);
        kept.put("time", time.longValue());
        kept.put("id", id);
        history.add(room, Collections.unmodifiableMap(kept));
    }

    private void sendHistory(String room, ServerSession session) {
        Map<String, Object> data = historyMessage(room);
        if (!((List<?>) data.get("messages")).isEmpty()) {
            session.deliver(getLocalSession(), ROOM_PREFIX + room, data, Promise.noop());
        }
    }

    private Map<String, Object> historyMessage(String room) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("type", "history");
        data.put("room", room);
        data.put("messages", history.recent(room));
        return data;
    }

    /** @return the last messages of the rooms */
    public ChatHistory history() {
        return history;
    }

    private Object sendPrivate(ServerSession requester, ServerMessage request) {
        String from = nameOf(requester);
        if (from == null) {
            throw new IllegalStateException("unnamed sessions cannot send private messages");
        }
        Map<String, Object> data = request.getDataAsMap();
        Object to = data == null ? null : data.get("to");
        String text = textIn(request);
        if (!(to instanceof String) || text == null) {
            throw new IllegalArgumentException("expected {\"to\":name,\"text\":text}");
        }
        Map<String, Object> note = new LinkedHashMap<>();
        note.put("type", "private");
        note.put("from", from);
        note.put("to", to);
        note.put("text", text);
        note.put("time", System.currentTimeMillis());
        int delivered = deliverHere((String) to, note);
        CompletableFuture<Boolean> asked = presence.isPresent((String) to).toCompletableFuture();
        boolean present = asked.isDone() && !asked.isCompletedExceptionally() ? asked.join() : users.contains(to);
        if (present) {
            // Its sessions on other nodes get it from there; this node's own copy comes back and is dropped.
            Map<String, Object> envelope = new LinkedHashMap<>();
            envelope.put("node", presence.nodeId());
            envelope.put("to", to);
            envelope.put("note", note);
            getServer().createChannelIfAbsent(PRIVATE_CHANNEL).publish(getLocalSession(), envelope, Promise.of(
                    sent -> { }, failure -> LOG.debug("A private message could not leave this node: {}",
                            failure.toString())));
        }
        return Map.of("delivered", delivered > 0 ? delivered : present ? 1 : 0);
    }

    private int deliverHere(String to, Object note) {
        int delivered = 0;
        for (ServerSession session : getServer().getSessions()) {
            if (to.equals(nameOf(session))) {
                session.deliver(getLocalSession(), "/chat/private", note, Promise.noop());
                delivered++;
            }
        }
        return delivered;
    }

    private void onPrivate(ClientSessionChannel channel, Message message) {
        Map<String, Object> data = message.getDataAsMap();
        Object node = data == null ? null : data.get("node");
        Object to = data == null ? null : data.get("to");
        Object note = data == null ? null : data.get("note");
        if (node instanceof String && !node.equals(presence.nodeId()) && to instanceof String && note instanceof Map) {
            deliverHere((String) to, note);
        }
    }

    /**
     * @param room a room name
     * @return the names of its members on every node, sorted, each once (as last read when presence answers later)
     */
    public List<String> members(String room) {
        CompletableFuture<List<PresenceEntry>> read = presence.members(ROOM_PREFIX + room).toCompletableFuture();
        if (read.isDone() && !read.isCompletedExceptionally()) {
            return names(read.join());
        }
        synchronized (lists) {
            return lists.getOrDefault(room, List.of());
        }
    }

    /**
     * To this node's subscribers of the room only, not published, so that no cluster forwards it (every node sends
     * its own subscribers the whole list, with its own growing version). Outside any lock, as delivery may run
     * listeners of other sessions; hence the version.
     */
    private void publishMembers(String room, List<String> names, long version) {
        ServerChannel channel = getServer().getChannel(ROOM_PREFIX + room);
        if (channel == null) {
            return;
        }
        Map<String, Object> members = membersMessage(room, names, version);
        for (ServerSession subscriber : channel.getSubscribers()) {
            subscriber.deliver(getLocalSession(), channel.getId(), members, Promise.noop());
        }
    }

    private Map<String, Object> membersMessage(String room) {
        long version;
        synchronized (lists) {
            version = membersVersion;
        }
        return membersMessage(room, members(room), version);
    }

    private static Map<String, Object> membersMessage(String room, List<String> names, long version) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("type", "members");
        data.put("room", room);
        data.put("members", names);
        data.put("version", version);
        return data;
    }

    private static String nameOf(ServerSession session) {
        Object name = session.getAttribute(NAME_ATTRIBUTE);
        return name instanceof String ? (String) name : null;
    }

    static String nameIn(ServerMessage handshake) {
        Map<String, Object> ext = handshake == null ? null : handshake.getExt();
        Object chat = ext == null ? null : ext.get("chat");
        Object name = chat instanceof Map ? ((Map<?, ?>) chat).get("name") : null;
        if (!(name instanceof String)) {
            return null;
        }
        String trimmed = ((String) name).strip();
        if (trimmed.isEmpty() || trimmed.length() > MAX_NAME_LENGTH || trimmed.chars().anyMatch(Character::isISOControl)) {
            return null;
        }
        return trimmed;
    }

    static String roomOf(String channel) {
        if (channel == null || !channel.startsWith(ROOM_PREFIX)) {
            return null;
        }
        String room = channel.substring(ROOM_PREFIX.length());
        return ROOM_NAME.matcher(room).matches() ? room : null;
    }

    private static String roomIn(ServerMessage request) {
        Map<String, Object> data = request.getDataAsMap();
        Object room = data == null ? null : data.get("room");
        if (!(room instanceof String) || roomOf(ROOM_PREFIX + room) == null) {
            throw new IllegalArgumentException("expected {\"room\":name}");
        }
        return (String) room;
    }

    private static String textIn(ServerMessage message) {
        Map<String, Object> data = message.getDataAsMap();
        Object text = data == null ? null : data.get("text");
        if (!(text instanceof String)) {
            return null;
        }
        String trimmed = ((String) text).strip();
        if (trimmed.isEmpty()) {
            return null;
        }
        return trimmed.length() > MAX_TEXT_LENGTH ? trimmed.substring(0, MAX_TEXT_LENGTH) : trimmed;
    }

    /** @return true for a channel (or a wildcard) that covers one of the cluster channels */
    static boolean covers(ChannelId channel) {
        return channel.name().startsWith(CLUSTER_PREFIX) || channel.matches(PRIVATE_ID);
    }

    /**
     * The engine's policy, with the cluster channels kept to the server's own sessions: other nodes' private
     * messages are no client's business.
     */
    private static final class Guard implements SecurityPolicy {
        private final SecurityPolicy next;

        Guard(SecurityPolicy next) {
            this.next = next == null ? new SecurityPolicy() {
            } : next;
        }

        @Override
        public void canHandshake(BayeuxServer server, ServerSession session, ServerMessage message,
                Promise<Boolean> promise) {
            next.canHandshake(server, session, message, promise);
        }

        @Override
        public void canCreate(BayeuxServer server, ServerSession session, ChannelId channel, ServerMessage message,
                Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && channel.name().startsWith(CLUSTER_PREFIX)) {
                promise.succeed(false);
                return;
            }
            next.canCreate(server, session, channel, message, promise);
        }

        @Override
        public void canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && covers(channel.getChannelId())) {
                promise.succeed(false);
                return;
            }
            next.canSubscribe(server, session, channel, message, promise);
        }

        @Override
        public void canPublish(BayeuxServer server, ServerSession session, ServerChannel channel,
                ServerMessage message, Promise<Boolean> promise) {
            if (session != null && !session.isLocalSession() && channel.getId().startsWith(CLUSTER_PREFIX)) {
                promise.succeed(false);
                return;
            }
            next.canPublish(server, session, channel, message, promise);
        }
    }
}
