package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The messages that wait for a reply, by id, with what to call when it comes. The application's messages count
 * against {@link BayeuxClientConfig#maxPendingMessages()}, which bounds what a client holds however fast it sends.
 */
final class PendingReplies {
    private final Map<String, Pending> byId = new ConcurrentHashMap<>();
    private final AtomicInteger counted = new AtomicInteger();
    private final int max;

    PendingReplies(int max) {
        this.max = max;
    }

    /**
     * @param pending the entry
     * @return false, with nothing recorded, if the entry counts and the limit is reached
     */
    boolean add(Pending pending) {
        if (pending.counted && counted.incrementAndGet() > max) {
            counted.decrementAndGet();
            return false;
        }
        byId.put(pending.request.getId(), pending);
        return true;
    }

    /**
     * @param id a message id, or null
     * @return the entry, still recorded, or null
     */
    Pending peek(String id) {
        return id == null ? null : byId.get(id);
    }

    /**
     * @param id a message id, or null
     * @return the entry, no longer recorded, or null
     */
    Pending take(String id) {
        Pending pending = id == null ? null : byId.remove(id);
        if (pending != null) {
            release(pending);
        }
        return pending;
    }

    /** @return every entry, no longer recorded */
    List<Pending> takeAll() {
        List<Pending> all = new ArrayList<>();
        for (String id : List.copyOf(byId.keySet())) {
            Pending pending = take(id);
            if (pending != null) {
                all.add(pending);
            }
        }
        return all;
    }

    /** @return how many of the application's messages wait for a reply */
    int countedSize() {
        return counted.get();
    }

    private void release(Pending pending) {
        if (pending.counted) {
            counted.decrementAndGet();
        }
        Scheduler.Task timer = pending.timer;
        if (timer != null) {
            timer.cancel();
        }
    }

    /** A message waiting for its reply. */
    static final class Pending {
        final Message.Mutable request;
        /** The application's callback, or null. */
        final MessageListener callback;
        /** For a subscribe: the listener to remove if the server refuses. */
        final MessageListener subscriber;
        /** A remote call waits for the service's answer, not for the publish reply. */
        final boolean remoteCall;
        final boolean counted;
        /** A remote call's timeout; set once, right after the entry is added. */
        volatile Scheduler.Task timer;

        Pending(Message.Mutable request, MessageListener callback, MessageListener subscriber, boolean remoteCall,
                boolean counted) {
            this.request = request;
            this.callback = callback;
            this.subscriber = subscriber;
            this.remoteCall = remoteCall;
            this.counted = counted;
        }
    }
}
