package org.bayeux.server.cluster;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A session store that {@linkplain SessionStore#adopts() adopts} sessions, as a test double: it records every
 * {@link #writeNow}, {@link #journal} and {@link #release} call with the stage it returned, which completes at once
 * unless the test holds that kind of call ({@link #holdWrites}, ...), and then completes when the test says so.
 */
final class AdoptingStoreDouble implements SessionStore {
    /** One call: the session's id, what the session said at the time, and the stage returned. */
    record Call(String sessionId, long batch, Map<String, ChannelPosition> positions, boolean acknowledges,
            CompletableFuture<Void> stage) {
    }

    final List<Call> writes = new CopyOnWriteArrayList<>();
    final List<Call> journals = new CopyOnWriteArrayList<>();
    final List<Call> releases = new CopyOnWriteArrayList<>();
    final List<String> removed = new CopyOnWriteArrayList<>();
    /** The ids of the sessions the store was told changed, in order. */
    final List<String> changed = new CopyOnWriteArrayList<>();
    private volatile boolean holdWrites;
    private volatile boolean holdJournals;
    private volatile boolean holdReleases;

    void holdWrites(boolean hold) {
        holdWrites = hold;
    }

    void holdJournals(boolean hold) {
        holdJournals = hold;
    }

    void holdReleases(boolean hold) {
        holdReleases = hold;
    }

    @Override
    public boolean adopts() {
        return true;
    }

    @Override
    public void created(SessionState session) {
    }

    @Override
    public void changed(SessionState session) {
        changed.add(session.sessionId());
    }

    @Override
    public SessionState find(String sessionId) {
        return null;
    }

    @Override
    public void removed(String sessionId) {
        removed.add(sessionId);
    }

    @Override
    public CompletionStage<Void> writeNow(SessionState session) {
        return record(writes, session, -1, Map.of(), holdWrites);
    }

    @Override
    public CompletionStage<Void> journal(SessionState session, long batch, Map<String, ChannelPosition> positions) {
        return record(journals, session, batch, positions, holdJournals);
    }

    @Override
    public CompletionStage<Void> release(SessionState session) {
        return record(releases, session, -1, Map.of(), holdReleases);
    }

    private static CompletionStage<Void> record(List<Call> calls, SessionState session, long batch,
            Map<String, ChannelPosition> positions, boolean hold) {
        CompletableFuture<Void> stage = new CompletableFuture<>();
        calls.add(new Call(session.sessionId(), batch, positions, session.acknowledges(), stage));
        if (!hold) {
            stage.complete(null);
        }
        return stage;
    }
}
