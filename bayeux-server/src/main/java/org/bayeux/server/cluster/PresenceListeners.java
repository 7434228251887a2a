package org.bayeux.server.cluster;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The listeners of a {@link Presence}: each event told to each, one that throws logged and the next told. */
public final class PresenceListeners {
    private static final Logger LOG = LoggerFactory.getLogger(PresenceListeners.class);
    private final List<Presence.Listener> listeners = new CopyOnWriteArrayList<>();

    /** @param listener a listener to tell from now on */
    public void add(Presence.Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * @param listener a listener added before
     * @return true if it was registered
     */
    public boolean remove(Presence.Listener listener) {
        return listeners.remove(listener);
    }

    /** @return true if none is registered (an implementation may then skip building events) */
    public boolean isEmpty() {
        return listeners.isEmpty();
    }

    /** @param event told to every listener, in the order they were added */
    public void fire(PresenceEvent event) {
        for (Presence.Listener listener : listeners) {
            try {
                listener.presence(event);
            } catch (RuntimeException failure) {
                LOG.warn("A presence listener failed", failure);
            }
        }
    }

    /** @param events told in order, each to every listener */
    public void fire(List<PresenceEvent> events) {
        for (PresenceEvent event : events) {
            fire(event);
        }
    }
}
