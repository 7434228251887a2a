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
        synchronized (this) {
            callbacks = with(callbacks, callback);
        }
    }

    /**
     * @param callback the callback to remove (its first occurrence)
     */
    public void remove(T callback) {
        synchronized (this) {
            callbacks = without(callbacks, callback);
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

    /**
     * The copy-on-write step of {@link #add}, for owners that keep such lists in their own fields (a session keeps
     * six, mostly empty: one field each instead of one object each).
     *
     * @param callbacks an unchangeable list of callbacks
     * @param callback the callback to add
     * @param <T> the callback type
     * @return an unchangeable copy with the callback added last
     */
    public static <T> List<T> with(List<T> callbacks, T callback) {
        Objects.requireNonNull(callback, "callback");
        List<T> grown = new ArrayList<>(callbacks.size() + 1);
        grown.addAll(callbacks);
        grown.add(callback);
        return List.copyOf(grown);
    }

    /**
     * The copy-on-write step of {@link #remove}.
     *
     * @param callbacks an unchangeable list of callbacks
     * @param callback the callback to remove (its first occurrence)
     * @param <T> the callback type
     * @return the same list if the callback is not in it, else an unchangeable copy without it
     */
    public static <T> List<T> without(List<T> callbacks, T callback) {
        int index = callbacks.indexOf(callback);
        if (index < 0) {
            return callbacks;
        }
        List<T> rest = new ArrayList<>(callbacks);
        rest.remove(index);
        return List.copyOf(rest);
    }
}
