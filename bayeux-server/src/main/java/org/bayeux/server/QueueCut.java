package org.bayeux.server;

import java.util.ArrayDeque;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.ServerMessage;

/**
 * Cuts a session's queue to what one response or frame may carry.
 */
final class QueueCut {
    private QueueCut() {
    }

    /** Moves the messages beyond {@code maxBytes} of JSON out of the queue, and returns them (null if none). */
    static ArrayDeque<ServerMessage> beyond(ArrayDeque<ServerMessage> pending, int maxBytes, JsonCodec codec) {
        if (maxBytes == Integer.MAX_VALUE || pending.size() < 2) {
            return null;
        }
        long total = 0;
        int fitting = 0;
        for (ServerMessage message : pending) {
            // Frozen messages cache their bytes, so this encodes each message once, as sending would anyway.
            long size = message instanceof ServerMessageImpl
                    ? ((ServerMessageImpl) message).toJsonBytes(codec).length + 1 : 0;
            if (fitting > 0 && total + size > maxBytes) {
                break;
            }
            total += size;
            fitting++;
        }
        if (fitting == pending.size()) {
            return null;
        }
        ArrayDeque<ServerMessage> left = new ArrayDeque<>(pending.size() - fitting);
        while (pending.size() > fitting) {
            left.addFirst(pending.pollLast());
        }
        return left;
    }
}
