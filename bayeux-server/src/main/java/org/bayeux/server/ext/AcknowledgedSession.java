package org.bayeux.server.ext;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.api.Message;
import org.bayeux.api.server.DeQueueListener;
import org.bayeux.api.server.QueueListener;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionExtension;
import org.bayeux.server.ServerMessageImpl;
import org.bayeux.server.cluster.AcknowledgedBatch;
import org.bayeux.server.cluster.ChannelPosition;
import org.bayeux.server.internal.PositionLog;
import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code ack} state of one session, and the hooks that keep it: the list of messages sent but not yet
 * acknowledged, each with the number of the first connect reply that carried it, and the counter of those numbers.
 *
 * <p>Threads. The list and the counter change only in the queue and dequeue listeners, which the engine runs under
 * the session's lock; so the list needs no lock of its own and no other lock is taken under the session's. Incoming
 * connects, which run outside that lock, only record the acknowledged number (an atomic maximum) and read two
 * volatile fields; the acknowledged entries are removed the next time the listeners run, which is at the latest
 * when the reply to that same connect is built.</p>
 */
final class AcknowledgedSession implements SessionExtension, QueueListener, DeQueueListener, AcknowledgedBatch {
    private static final Logger LOG = LoggerFactory.getLogger(AcknowledgedMessagesExtension.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);

    /** A message, the batch (the number of the first connect reply that carried it), and its bytes. */
    private record Sent(ServerMessage message, long batch, int bytes) {
    }

    /** Guarded by the session's lock. In sending order, so batches never decrease along it. */
    private final ArrayDeque<Sent> unacknowledged = new ArrayDeque<>();
    /** Guarded by the session's lock: the JSON bytes of the unacknowledged messages, as the engine counts them. */
    private long unacknowledgedBytes;
    /** The highest batch the client acknowledged, never above a batch issued when the acknowledgement came. */
    private final AtomicLong acknowledgedBatch = new AtomicLong();
    /** The number of the newest connect reply built, 0 before the first; written under the session's lock. */
    private volatile long lastBatch;
    /** The batch of the newest entry kept, 0 when none is; written under the session's lock. */
    private volatile long newestKeptBatch;
    /** Guarded by the session's lock: per channel, the last position the client acknowledged. */
    private final PositionLog positions = new PositionLog();
    /** Set when unacknowledged and queued messages reached maxQueue: the session is ended at the next chance. */
    private volatile boolean overflowed;

    private AcknowledgedSession() {
    }

    /**
     * Turns acks on for a session that has just handshaken.
     *
     * @param session the session
     */
    static void install(ServerSession session) {
        AcknowledgedSession state = new AcknowledgedSession();
        // First, so that nothing can be pushed or piggy-backed outside a numbered connect reply from now on.
        session.setMetaConnectDeliveryOnly(true);
        session.addQueueListener(state);
        session.addDeQueueListener(state);
        session.addExtension(state);
    }

    // ---- incoming: the client acknowledges --------------------------------------------------------------------

    @Override
    public boolean rcv(ServerSession session, ServerMessage.Mutable message) {
        endIfOverflowed(session);
        return true;
    }

    @Override
    public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        String channel = message.getChannel();
        if (Message.META_DISCONNECT.equals(channel) || endIfOverflowed(session)) {
            return true;
        }
        if (Message.META_CONNECT.equals(channel)) {
            acknowledge(message);
        }
        return true;
    }

    private void acknowledge(ServerMessage.Mutable connect) {
        Map<String, Object> ext = connect.getExt();
        Object ack = ext == null ? null : ext.get(AcknowledgedMessagesExtension.ACK_FIELD);
        if (ack instanceof Number) {
            // A number above every batch issued acknowledges them all, but never a batch still to come.
            long acknowledged = Math.min(((Number) ack).longValue(), lastBatch);
            acknowledgedBatch.accumulateAndGet(acknowledged, Math::max);
        }
        if (newestKeptBatch > acknowledgedBatch.get()) {
            // Messages were sent and not acknowledged: their reply was lost. Holding this connect would delay them
            // by a whole timeout, so ask the engine to answer it at once, which resends them.
            answerAtOnce(connect);
        }
    }

    private static void answerAtOnce(ServerMessage.Mutable connect) {
        Map<String, Object> clientAdvice = connect.getAdvice();
        // A copy, because the parsed advice object may not be changeable.
        Map<String, Object> advice = clientAdvice == null ? new HashMap<>(4) : new HashMap<>(clientAdvice);
        advice.put(Message.TIMEOUT_FIELD, 0L);
        connect.put(Message.ADVICE_FIELD, advice);
    }

    // ---- outgoing: queuing, and building connect replies (under the session's lock) ---------------------------

    @Override
    public boolean queueOffer(ServerSession session, ServerSession sender, ServerMessage message) {
        if (overflowed) {
            return false;
        }
        forgetAcknowledged();
        if (unacknowledged.isEmpty()) {
            // The queue alone: the engine applies maxQueue and its own policy.
            return true;
        }
        // getQueueSize and getQueueBytes take the session's lock, which this thread already holds.
        int queued = session.getQueueSize();
        long queuedBytes = session.getQueueBytes();
        if (unacknowledged.size() + queued < session.getMaxQueue()
                && unacknowledgedBytes + queuedBytes + bytesOf(message) <= session.getMaxQueueBytes()) {
            return true;
        }
        overflowed = true;
        QUIET.info("maxQueue", "A session has {} unacknowledged and {} queued messages ({} and {} bytes), reaching "
                + "maxQueue={} or maxQueueBytes={}; disconnecting it", unacknowledged.size(), queued,
                unacknowledgedBytes, queuedBytes, session.getMaxQueue(), session.getMaxQueueBytes());
        LOG.debug("Session {} reached maxQueue with unacknowledged messages", session.getId());
        return false;
    }

    @Override
    public void deQueue(ServerSession session, Queue<ServerMessage> queue) {
        deQueue(session, queue, null);
    }

    @Override
    public void deQueue(ServerSession session, Queue<ServerMessage> queue, ServerMessage.Mutable connectReply) {
        if (connectReply == null) {
            // Pushed or piggy-backed, which metaConnectDeliveryOnly prevents; should the application turn it off,
            // such messages leave without a batch number and are not resent.
            return;
        }
        forgetAcknowledged();
        long batch = lastBatch + 1;
        for (ServerMessage fresh : queue) {
            int bytes = bytesOf(fresh);
            unacknowledged.add(new Sent(fresh, batch, bytes));
            unacknowledgedBytes += bytes;
        }
        // Every entry kept goes out again, oldest first: the client acknowledges by batch, never by message.
        queue.clear();
        for (Sent sent : unacknowledged) {
            queue.add(sent.message());
        }
        newestKeptBatch = unacknowledged.isEmpty() ? 0 : unacknowledged.peekLast().batch();
        lastBatch = batch;
        // Stamped here, not in an outgoing extension, so that the number is exactly the one of these messages.
        connectReply.getExt(true).put(AcknowledgedMessagesExtension.ACK_FIELD, batch);
    }

    private void forgetAcknowledged() {
        long acknowledged = acknowledgedBatch.get();
        while (!unacknowledged.isEmpty() && unacknowledged.peekFirst().batch() <= acknowledged) {
            Sent gone = unacknowledged.pollFirst();
            unacknowledgedBytes -= gone.bytes();
            positions.record(gone.message());
        }
        if (unacknowledged.isEmpty()) {
            newestKeptBatch = 0;
            unacknowledgedBytes = 0;
        }
    }

    /** @return a message's bytes as the engine's queue counts them: its JSON, encoded when it was queued, plus one */
    private static int bytesOf(ServerMessage message) {
        int length = message instanceof ServerMessageImpl ? ((ServerMessageImpl) message).cachedJsonLength() : -1;
        return length < 0 ? 0 : length + 1;
    }

    @Override
    public ServerMessage send(ServerSession session, ServerMessage message) {
        // Runs outside the session's lock, before the queue listener: the place to end an overflowed session.
        return endIfOverflowed(session) ? null : message;
    }

    /** @return true if the session overflowed and is now ended */
    private boolean endIfOverflowed(ServerSession session) {
        if (!overflowed) {
            return false;
        }
        session.disconnect();
        return true;
    }

    @Override
    public long acknowledgedBatch() {
        return acknowledgedBatch.get();
    }

    @Override
    public Map<String, ChannelPosition> acknowledgedPositions() {
        return positions.view();
    }

    @Override
    public long lastBatch() {
        return lastBatch;
    }

    /**
     * Under the session's lock: the acknowledged positions moved on by every message still unacknowledged, which
     * after {@link #deQueue} includes the batch just numbered; what the client has once it received that batch.
     */
    @Override
    public Map<String, ChannelPosition> positionsAfterLastBatch() {
        if (unacknowledged.isEmpty()) {
            return Map.copyOf(positions.view());
        }
        Map<String, ChannelPosition> after = new HashMap<>(positions.view());
        for (Sent sent : unacknowledged) {
            String channel = sent.message().getChannel();
            ChannelPosition position = channel == null ? null : ChannelPosition.of(sent.message());
            if (position != null) {
                after.put(channel, position);
            }
        }
        return Map.copyOf(after);
    }

    /**
     * Continues the numbering of a session adopted from another node, before it serves anything: its next connect
     * reply is batch {@code lastBatch + 1}, and what the client acknowledged is known, so that an {@code ack} up to
     * {@code lastBatch} is taken as it comes.
     */
    @Override
    public void continueFrom(long lastBatch, long acknowledged, Map<String, ChannelPosition> positions) {
        if (lastBatch < 0 || acknowledged < 0 || acknowledged > lastBatch) {
            throw new IllegalArgumentException("lastBatch=" + lastBatch + ", acknowledged=" + acknowledged
                    + ": both 0 or more, acknowledged at most lastBatch");
        }
        this.lastBatch = lastBatch;
        acknowledgedBatch.set(acknowledged);
        this.positions.seed(positions);
    }
}
