package org.bayeux.standalone.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

import org.bayeux.api.Promise;
import org.bayeux.api.client.ClientSessionChannel;
import org.bayeux.api.Message;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.BayeuxService;

/**
 * The server side of the demo chat: names, rooms and their members, and private messages.
 *
 * <ul>
 *   <li>A client names itself in its handshake: {@code "ext":{"chat":{"name":"Ann"}}}. A re-handshake (after a
 *       server restart, say) carries the name again, so nothing else has to be replayed.</li>
 *   <li>Subscribing to {@code /chat/room/<room>} joins the room; unsubscribing, or the end of the session, leaves
 *       it. After each change the service publishes {@code {"type":"members","room":…,"members":[…],"version":n}} on
 *       the room's channel, so a client's own automatic re-subscription brings it back into the member lists. Two
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
 * <p>Clustered ({@link #ChatService(BayeuxServer, Cluster)}), the member lists and private messages span the nodes:
 * the {@link Cluster} is told of every local change and answers the room's members on every node; member lists are
 * then delivered to this node's subscribers of the room only (each node sends its own, so a client's versions come
 * from one node and grow), and a private message reaches the name's sessions on every node ({@code delivered} is 1
 * when at least one node has the name, else 0). Room messages themselves cross the nodes by the cluster's
 * forwarding of {@code /chat/room/*}. The history is kept by every node from the room messages it receives (its
 * local session subscribes to {@code /chat/room/*}, so it also receives those the cluster forwards): a node started
 * after some messages were sent does not have them.</p>
 */
public final class ChatService extends BayeuxService {
    /** The session attribute holding the chat name. */
    public static final String NAME_ATTRIBUTE = "chat.name";
    /** The prefix of room channels. */
    public static final String ROOM_PREFIX = "/chat/room/";
    static final int MAX_NAME_LENGTH = 32;
    static final int MAX_TEXT_LENGTH = 2000;
    private static final Pattern ROOM_NAME = Pattern.compile("[A-Za-z0-9_\\-]{1,40}");

    /** Room name → its members, in joining order. Guarded by itself. */
    private final Map<String, Set<ServerSession>> rooms = new TreeMap<>();
    /** How many membership changes there have been, in all rooms. Guarded by {@link #rooms}. */
    private long membersVersion;
    /** Null for one node. */
    private final Cluster cluster;
    private final ChatHistory history;

    /**
     * What a clustered chat needs from the cluster: where names and room memberships of this node are shared, and
     * the members of a room on every node are read. Calls come from the threads of the sessions' changes.
     */
    public interface Cluster {
        /**
         * @param chat the service, to be told of other nodes' changes ({@link #membersChanged})
         */
        void attach(ChatService chat);

        /** A session of this node named itself. */
        void named(String name, ServerSession session);

        /** A named session of this node joined a room. */
        void joined(String room, String name, ServerSession session);

        /** A named session of this node left a room (or ended). */
        void left(String room, String name, ServerSession session);

        /**
         * @param room a room
         * @return the names in it on every node, sorted, each once
         */
        List<String> members(String room);

        /**
         * @param to a name
         * @param note the private message
         * @return whether a session of that name is on this node or the message was sent to a node that has one
         */
        boolean sendPrivate(String to, Map<String, Object> note);
    }

    /** @param server the server to serve */
    public ChatService(BayeuxServer server) {
        this(server, null);
    }

    /**
     * @param server the server to serve
     * @param cluster where rooms and names are shared with the other nodes; null for one node
     */
    public ChatService(BayeuxServer server, Cluster cluster) {
        this(server, cluster, new ChatHistory());
    }

    /**
     * @param server the server to serve
     * @param cluster where rooms and names are shared with the other nodes; null for one node
     * @param history where the last messages of the rooms are kept
     */
    public ChatService(BayeuxServer server, Cluster cluster, ChatHistory history) {
        super(server, "chat");
        this.cluster = cluster;
        this.history = history;
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                String name = nameIn(handshake);
                if (name != null) {
                    session.setAttribute(NAME_ATTRIBUTE, name);
                    if (cluster != null) {
                        cluster.named(name, session);
                    }
                }
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                leaveAll(session);
            }
        });
        server.addSubscriptionListener(new SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                String room = roomOf(channel.getId());
                if (room != null && nameOf(session) != null && change(room, session, true)) {
                    sendHistory(room, session);
                    publishMembers(room);
                }
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                String room = roomOf(channel.getId());
                if (room != null && change(room, session, false)) {
                    publishMembers(room);
                }
            }
        });
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
        if (cluster != null) {
            cluster.attach(this);
        }
    }

    /**
     * Another node's members of a room changed: this node's subscribers of the room get the new list.
     *
     * @param room the room
     */
    public void membersChanged(String room) {
        publishMembers(room);
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
        if (cluster != null) {
            return Map.of("delivered", cluster.sendPrivate((String) to, note) ? 1 : 0);
        }
        int delivered = 0;
        for (ServerSession session : getServer().getSessions()) {
            if (to.equals(nameOf(session))) {
                session.deliver(getLocalSession(), "/chat/private", note, Promise.noop());
                delivered++;
            }
        }
        return Map.of("delivered", delivered);
    }

    /**
     * @param room a room name
     * @return the names of its members, in joining order (clustered: on every node, sorted, each name once)
     */
    public List<String> members(String room) {
        if (cluster != null) {
            return cluster.members(room);
        }
        synchronized (rooms) {
            List<String> names = new ArrayList<>();
            for (ServerSession session : rooms.getOrDefault(room, Set.of())) {
                names.add(nameOf(session));
            }
            return names;
        }
    }

    private boolean change(String room, ServerSession session, boolean join) {
        boolean changed;
        synchronized (rooms) {
            changed = join ? rooms.computeIfAbsent(room, r -> new java.util.LinkedHashSet<>()).add(session)
                    : leave(room, session);
            if (changed) {
                membersVersion++;
            }
        }
        if (changed && cluster != null) {
            // Outside the lock: the cluster tells other nodes, and may call back.
            String name = nameOf(session);
            if (join) {
                cluster.joined(room, name, session);
            } else {
                cluster.left(room, name, session);
            }
        }
        return changed;
    }

    private boolean leave(String room, ServerSession session) {
        Set<ServerSession> members = rooms.get(room);
        if (members == null || !members.remove(session)) {
            return false;
        }
        if (members.isEmpty()) {
            rooms.remove(room);
        }
        return true;
    }

    private void leaveAll(ServerSession session) {
        List<String> left = new ArrayList<>();
        synchronized (rooms) {
            for (String room : new ArrayList<>(rooms.keySet())) {
                if (rooms.get(room).contains(session)) {
                    left.add(room);
                }
            }
        }
        for (String room : left) {
            if (change(room, session, false)) {
                publishMembers(room);
            }
        }
    }

    // Published outside the lock, as delivery may run listeners of other sessions; hence the version.
    private void publishMembers(String room) {
        ServerChannel channel = getServer().createChannelIfAbsent(ROOM_PREFIX + room);
        if (cluster == null) {
            channel.publish(getLocalSession(), membersMessage(room), Promise.noop());
            return;
        }
        // Clustered: to this node's subscribers only, not published, so that the cluster does not forward it (every
        // node sends its own subscribers the whole list, with its own growing version).
        Map<String, Object> members = membersMessage(room);
        for (ServerSession subscriber : channel.getSubscribers()) {
            subscriber.deliver(getLocalSession(), channel.getId(), members, Promise.noop());
        }
    }

    private Map<String, Object> membersMessage(String room) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("type", "members");
        data.put("room", room);
        synchronized (rooms) {
            if (cluster != null) {
                // A version for each reading of the cluster's list, taken together, so that a higher version never
                // carries an older list (the cluster calls back without holding its own lock: no deadlock).
                membersVersion++;
                data.put("members", cluster.members(room));
            } else {
                data.put("members", members(room));
            }
            data.put("version", membersVersion);
        }
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
}
