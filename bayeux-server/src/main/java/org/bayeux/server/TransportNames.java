package org.bayeux.server;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The transports an engine advertises in handshake replies and accepts in connects, as its transports set them. */
final class TransportNames {
    private volatile Set<String> names;

    TransportNames(List<String> initial) {
        this.names = new LinkedHashSet<>(initial);
    }

    void set(List<String> names) {
        this.names = new LinkedHashSet<>(names);
    }

    /** @return the names, in order; not to be changed */
    Set<String> advertised() {
        return names;
    }

    /** @return true if a connect may name this connection type (a transport of this engine, or in-process) */
    boolean accepts(String type) {
        return names.contains(type) || LocalSessionImpl.IN_PROCESS.equals(type);
    }
}
