package org.bayeux.standalone.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.bayeux.api.server.ServerSession;
import org.bayeux.oort.Seti;
import org.bayeux.server.cluster.ClusterMember;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo chat across Oort nodes, on {@link Seti}: a name is the Seti user {@code name:<name>} (so that private
 * messages reach it on whatever node it is), and a name in a room is the Seti user {@code room:<room>/<name>} (so that
 * a room's members are the users with that prefix on every node, and a change on another node arrives as a presence
 * event). Seti drops an association when its session ends and a departed node's users with it, so a member list never
 * keeps a session or a node that is gone.
 */
public final class SetiChat implements ChatService.Cluster {
    private static final Logger LOG = LoggerFactory.getLogger(SetiChat.class);
    static final String NAME_PREFIX = "name:";
    static final String ROOM_PREFIX = "room:";

    private final Seti seti;
    private volatile ChatService chat;

    /** @param seti this node's Seti */
    public SetiChat(Seti seti) {
        this.seti = seti;
        seti.addPresenceListener(new Seti.PresenceListener() {
            @Override
            public void present(String userId, ClusterMember member, boolean local) {
                changed(userId, local);
            }

            @Override
            public void absent(String userId, ClusterMember member, boolean local) {
                changed(userId, local);
            }
        });
    }

    /** A change on another node (or a node that left): this node's subscribers of the room get the new list. */
    private void changed(String userId, boolean local) {
        ChatService service = chat;
        String room = roomOf(userId);
        // This node's own changes are sent by the chat service itself, once the change is made.
        if (!local && service != null && room != null) {
            service.membersChanged(room);
        }
    }

    static String roomOf(String userId) {
        if (!userId.startsWith(ROOM_PREFIX)) {
            return null;
        }
        int slash = userId.indexOf('/', ROOM_PREFIX.length());
        return slash < 0 ? null : userId.substring(ROOM_PREFIX.length(), slash);
    }

    @Override
    public void attach(ChatService service) {
        this.chat = service;
    }

    @Override
    public void named(String name, ServerSession session) {
        seti.associate(NAME_PREFIX + name, session);
    }

    @Override
    public void joined(String room, String name, ServerSession session) {
        if (name != null) {
            seti.associate(ROOM_PREFIX + room + "/" + name, session);
        }
    }

    @Override
    public void left(String room, String name, ServerSession session) {
        if (name != null) {
            seti.disassociate(ROOM_PREFIX + room + "/" + name, session);
        }
    }

    @Override
    public List<String> members(String room) {
        String prefix = ROOM_PREFIX + room + "/";
        List<String> names = new ArrayList<>();
        for (String userId : seti.userIds()) {
            if (userId.startsWith(prefix)) {
                names.add(userId.substring(prefix.length()));
            }
        }
        return names;
    }

    @Override
    public boolean sendPrivate(String to, Map<String, Object> note) {
        try {
            return seti.sendToUser(NAME_PREFIX + to, "/chat/private", note);
        } catch (RuntimeException tooLarge) {
            LOG.debug("A private message could not be sent to another node", tooLarge);
            return false;
        }
    }
}
