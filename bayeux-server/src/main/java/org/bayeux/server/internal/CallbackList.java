package org.bayeux.server.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A list of callbacks that costs one null field until the first one is added, so idle sessions stay small.
 *
 * @param <T> the callback type
 */
public final class CallbackList<T> {
    private volatile CopyOnWriteArrayList<T> callbacks;

    /**
     * @param callback the callback to add
     */
    public void add(T callback) {
        CopyOnWriteArrayList<T> list = callbacks;
        if (list == null) {
            synchronized (this) {
                list = callbacks;
                if (list == null) {
                    list = new CopyOnWriteArrayList<>();
                    callbacks = list;
                }
            }
        }
        list.add(java.util.Objects.requireNonNull(callback, "callback"));
    }

    /**
     * @param callback the callback to remove
     */
    public void remove(T callback) {
        CopyOnWriteArrayList<T> list = callbacks;
        if (list != null) {
            list.remove(callback);
        }
    }

    /** @return the callbacks, in the order added; a live view for iteration, never null */
    public List<T> list() {
        CopyOnWriteArrayList<T> list = callbacks;
        return list == null ? List.of() : list;
    }

    /** @return a copy of the callbacks */
    public List<T> snapshot() {
        return List.copyOf(list());
    }

    /** @return true if no callback was added, or all were removed */
    public boolean isEmpty() {
        CopyOnWriteArrayList<T> list = callbacks;
        return list == null || list.isEmpty();
    }
}
