package org.bayeux.backplane.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Shares history reads between the recoveries of one channel that wait at the same time, so that a thousand clients
 * coming back together after an outage cost Redis a few reads, not a thousand.
 *
 * <p>Why: each recovery read is a script that copies up to {@code recoveryMaxMessages} entries out of Redis. A
 * thousand of them at once (every subscriber of a room reconnecting after a network cut) kept Redis busy for seconds,
 * during which the nodes' stream reads and publishes timed out: the backplane declared Redis lost, publishes failed
 * with {@code 503::backplane_unavailable} and the recoveries themselves failed.</p>
 *
 * <p>How: at most one read per channel is in flight. A recovery that asks while one is in flight waits for the next
 * read, which starts when the one in flight ends, for every recovery that waited meanwhile (of one epoch: one read per
 * epoch asked), from the lowest offset among them; each recovery then takes the entries past its own offset. A read
 * must start after the recovering subscription took effect (what is published after it is held live, what before it
 * must be in the read), which holds: a recovery asks here only once its subscription took effect, and is served by a
 * read that starts after it asked. If the shared read cannot recover from the lowest offset (history no longer covers
 * it) but the epoch is the channel's, each recovery past that offset is read on its own: it may still be covered.</p>
 */
final class RecoveryReads {
    /** Reads a channel's history past an offset, within a budget: the backplane's paged recovery. */
    interface Reader {
        CompletableFuture<HistoryStore.Recovered> read(String channel, long offset, String epoch, int maxMessages,
                long maxBytes);
    }

    /** One recovery's ask: its position and its budget (the session's, {@code RecoveryExtension}). */
    private record Request(long offset, String epoch, int maxMessages, long maxBytes,
            CompletableFuture<HistoryStore.Recovered> result) {
    }

    /** One channel's recoveries waiting for the next read. */
    private static final class Waiting {
        boolean reading;
        final ArrayDeque<Request> requests = new ArrayDeque<>();
    }

    private final Reader reader;
    /** Guarded by this; a channel is here only while a read of it is in flight. */
    private final Map<String, Waiting> channels = new HashMap<>();
    private long reads;

    RecoveryReads(Reader reader) {
        this.reader = reader;
    }

    /**
     * @param channel a plain channel
     * @param offset the last offset the subscriber had, or -1 for the position only
     * @param epoch its epoch
     * @param maxMessages the most messages this recovery may deliver
     * @param maxBytes the most bytes of messages it may deliver
     * @return what the recovery found, as a read of its own would have answered this one subscriber
     */
    CompletableFuture<HistoryStore.Recovered> recover(String channel, long offset, String epoch, int maxMessages,
            long maxBytes) {
        if (offset < 0) {
            // The position only: nothing is copied, nothing to share.
            return count(reader.read(channel, offset, epoch, maxMessages, maxBytes));
        }
        Request request = new Request(offset, epoch, maxMessages, maxBytes, new CompletableFuture<>());
        List<Request> batch;
        synchronized (this) {
            Waiting waiting = channels.computeIfAbsent(channel, c -> new Waiting());
            waiting.requests.add(request);
            if (waiting.reading) {
                return request.result();
            }
            waiting.reading = true;
            batch = new ArrayList<>(waiting.requests);
            waiting.requests.clear();
        }
        read(channel, batch);
        return request.result();
    }

    /** @return the reads started, for tests */
    synchronized long reads() {
        return reads;
    }

    private CompletableFuture<HistoryStore.Recovered> count(CompletableFuture<HistoryStore.Recovered> read) {
        synchronized (this) {
            reads++;
        }
        return read;
    }

    private void read(String channel, List<Request> batch) {
        Map<String, List<Request>> byEpoch = new LinkedHashMap<>();
        for (Request request : batch) {
            byEpoch.computeIfAbsent(request.epoch(), e -> new ArrayList<>()).add(request);
        }
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (Map.Entry<String, List<Request>> group : byEpoch.entrySet()) {
            List<Request> requests = group.getValue();
            long lowest = Long.MAX_VALUE;
            int maxMessages = 0;
            long maxBytes = 0;
            for (Request request : requests) {
                lowest = Math.min(lowest, request.offset());
                // The largest budget among them: each then takes its slice only if it is within its own.
                maxMessages = Math.max(maxMessages, request.maxMessages());
                maxBytes = Math.max(maxBytes, request.maxBytes());
            }
            long from = lowest;
            CompletableFuture<HistoryStore.Recovered> read;
            try {
                read = count(reader.read(channel, from, group.getKey(), maxMessages, maxBytes));
            } catch (RuntimeException refused) {
                read = CompletableFuture.failedFuture(refused);
            }
            all.add(read.handle((found, failure) -> {
                share(channel, requests, from, found, failure);
                return null;
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> next(channel));
    }

    /** Starts the next read for the recoveries that waited meanwhile, or forgets the channel. */
    private void next(String channel) {
        List<Request> batch;
        synchronized (this) {
            Waiting waiting = channels.get(channel);
            if (waiting.requests.isEmpty()) {
                channels.remove(channel);
                return;
            }
            batch = new ArrayList<>(waiting.requests);
            waiting.requests.clear();
        }
        read(channel, batch);
    }

    private void share(String channel, List<Request> requests, long from, HistoryStore.Recovered found,
            Throwable failure) {
        for (Request request : requests) {
            try {
                if (failure != null) {
                    request.result().completeExceptionally(failure);
                } else if (found.recovered()) {
                    request.result().complete(withinBudget(slice(found, request.offset()), request));
                } else if (request.offset() != from && found.epoch().equals(request.epoch())
                        && request.offset() < found.offset()) {
                    // The history does not reach back to the lowest offset; it may reach back to this one.
                    count(reader.read(channel, request.offset(), request.epoch(), request.maxMessages(),
                            request.maxBytes())).whenComplete((alone, failed) -> {
                        if (failed != null) {
                            request.result().completeExceptionally(failed);
                        } else {
                            request.result().complete(alone);
                        }
                    });
                } else {
                    // Another epoch, past the top, or not recoverable: as a read of its own would have said.
                    request.result().complete(HistoryStore.Recovered.position(found.epoch(), found.offset(),
                            found.epoch().equals(request.epoch()) && request.offset() == found.offset(),
                            found.readAt()));
                }
            } catch (RuntimeException unexpected) {
                request.result().completeExceptionally(unexpected);
            }
        }
    }

    /** @return the entries of a recovered read past an offset (offsets are contiguous from the read's start) */
    private static HistoryStore.Recovered slice(HistoryStore.Recovered found, long offset) {
        if (offset >= found.offset()) {
            return HistoryStore.Recovered.position(found.epoch(), found.offset(), offset == found.offset(),
                    found.readAt());
        }
        List<Long> offsets = found.offsets();
        int start = offsets.isEmpty() ? 0 : (int) Math.max(0, Math.min(offsets.size(), offset + 1 - offsets.get(0)));
        return new HistoryStore.Recovered(found.epoch(), found.offset(), true,
                found.messages().subList(start, offsets.size()), offsets.subList(start, offsets.size()),
                found.times().subList(start, offsets.size()), found.readAt(), found.parsed());
    }

    /** @return the slice, or "not recovered" if it is more than this recovery's own budget */
    private static HistoryStore.Recovered withinBudget(HistoryStore.Recovered slice, Request request) {
        if (slice.messages().size() <= request.maxMessages() && slice.bytes() <= request.maxBytes()) {
            return slice;
        }
        return HistoryStore.Recovered.position(slice.epoch(), slice.offset(), false, slice.readAt());
    }
}
