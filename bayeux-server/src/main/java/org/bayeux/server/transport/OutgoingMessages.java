package org.bayeux.server.transport;

import org.bayeux.api.server.ServerMessage;

/**
 * Messages the engine hands to a {@link Carrier}, in order, with their JSON encoded by the engine: each frozen message
 * is encoded once, whatever the number of carriers it goes to, and a message sent alone is the very same array for
 * every carrier. Carriers write these bytes; they never encode.
 *
 * <p>Not thread-safe to share between carriers' threads in the middle of a call, but every byte array it returns is
 * immutable by contract and may be kept, shared and written from any thread.</p>
 */
public interface OutgoingMessages {
    /** @return how many messages, at least one */
    int size();

    /**
     * @param index from 0 to {@link #size()} - 1
     * @return the message, frozen, for carriers that deliver objects rather than bytes (in-process sessions) or that
     *         must look at a message's kind (replies are never split from what they answer)
     */
    ServerMessage get(int index);

    /**
     * @param index from 0 to {@link #size()} - 1
     * @return the length in bytes of the message's JSON object, to cut frames to a size before anything is copied
     */
    int jsonLength(int index);

    /**
     * @return every message as one UTF-8 JSON array; shared, never to be changed
     */
    default byte[] toJson() {
        return toJson(0, size());
    }

    /**
     * @param from the first message, inclusive
     * @param to the last message, exclusive; greater than {@code from}
     * @return those messages as one UTF-8 JSON array; a single message's array is its cached, shared bytes, so it must
     *         never be changed
     */
    byte[] toJson(int from, int to);

    /** @return true if any of the messages is a meta message or a reply (which are never split into frames) */
    default boolean containsMetaOrReply() {
        for (int i = 0, n = size(); i < n; i++) {
            ServerMessage message = get(i);
            if (message.isReply() || message.isMeta()) {
                return true;
            }
        }
        return false;
    }
}
