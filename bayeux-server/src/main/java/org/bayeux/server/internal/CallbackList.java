package org.bayeux.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A list of callbacks that costs one field, pointing to a shared empty list, until the first one is added, so idle
 * sessions stay small. Changes copy the list (callbacks are added and removed rarely, run often); each copy is an
 * immutable list, which for the one or two callbacks a session usually has is a few bytes where a
 * {@code CopyOnWriteArrayList} would take some 60.
 *
 * @param <T> the callback type
 */
public final class CallbackList<T> {
    /** Replaced, never changed; replaced under {@code this}. */
    private volatile List<T> callbacks = List.of();

    /**
     * @param callback the callback to add
     */
    public void add(T callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (this) {
            List<T> grown = new ArrayList<>(callbacks.size() + 1);
            grown.addAll(callbacks);
            grown.add(callback);
            callbacks = List.copyOf(grown);
        }
    }

    /**
     * @param callback the callback to remove (its first occurrence)
     */
    public void remove(T callback) {
        synchronized (this) {
            List<T> current = callbacks;
            int index = current.indexOf(callback);
            if (index < 0) {
                return;
            }
            List<T> rest = new ArrayList<>(current);
            rest.remove(index);
            callbacks = List.copyOf(rest);
        }
    }

    /** @return the callbacks, in the order added; an unchangeable snapshot, never null */
    public List<T> list() {
        return callbacks;
    }

    /** @return the callbacks as they are now, unchangeable (the same as {@link #list()}) */
    public List<T> snapshot() {
        return callbacks;
    }

    /** @return true if no callback was added, or all were removed */
    public boolean isEmpty() {
        return callbacks.isEmpty();
    }
}
