package org.bayeux.server;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The session attributes the application marked portable ({@code BayeuxServer#addPortableAttribute}): their string
 * values are what a session store keeps of them ({@link org.bayeux.server.cluster.SessionState#portableAttributes()}),
 * and what a node that adopts the session sets again. One per engine.
 */
final class PortableAttributes {
    private final Set<String> names = ConcurrentHashMap.newKeySet();

    /** @param name an attribute's name, from now on stored with every session */
    void add(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("an attribute's name, not empty: " + name);
        }
        names.add(name);
    }

    /**
     * @param session a session
     * @return its portable attributes whose values are strings (others are not stored), unchangeable
     */
    Map<String, String> of(ServerSessionImpl session) {
        if (names.isEmpty()) {
            return Map.of();
        }
        Map<String, String> values = new HashMap<>(names.size() * 2);
        for (String name : names) {
            if (session.getAttribute(name) instanceof String value) {
                values.put(name, value);
            }
        }
        return Map.copyOf(values);
    }

    /**
     * Sets the stored attributes on an adopted session: every one the store kept, whether or not this node marked it
     * (the node that stored it did).
     *
     * @param session the adopted session
     * @param stored the attributes its store kept
     */
    static void restore(ServerSessionImpl session, Map<String, String> stored) {
        stored.forEach(session::setAttribute);
    }
}
