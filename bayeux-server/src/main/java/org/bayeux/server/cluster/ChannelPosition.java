package org.bayeux.server.cluster;

import java.util.Map;
import java.util.Objects;

import org.bayeux.api.Message;

/**
 * Where a message stands in its channel, as a cluster that numbers messages (the Redis backplane) gives it: an
 * {@code epoch} naming one unbroken history of the channel, and an {@code offset} counting the channel's messages
 * from 1 within it. Such a cluster writes it into each message it delivers as
 * {@code "ext":{"position":{"offset":12,"epoch":"k3J9x0aQ"}}}; the engine reads it there ({@link #of(Message)}) to
 * keep each session's {@link SessionState#positions() positions}.
 *
 * <p>A subscription's seam ({@link SessionState#subscribedAt()}) may also be a position no message has: offset 0 of
 * an epoch (the epoch has no message yet), or {@link #NONE} (the channel had no epoch at all when the subscription took
 * effect: every message of whatever epoch it has later came after it).</p>
 *
 * @param epoch the channel's epoch, empty only in {@link #NONE}
 * @param offset the message's offset within the epoch, at least 1 for a message, 0 before the epoch's first
 */
public record ChannelPosition(String epoch, long offset) {
    /** The field of a message's {@code ext} holding its position. */
    public static final String FIELD = "position";
    /** Before any epoch: the channel had none (it was never published, or its position expired). */
    public static final ChannelPosition NONE = new ChannelPosition("", 0);

    /**
     * @param epoch the channel's epoch, empty only with offset 0 ({@link #NONE})
     * @param offset the message's offset within the epoch, at least 1 for a message, 0 before the epoch's first
     */
    public ChannelPosition {
        Objects.requireNonNull(epoch, "epoch");
        if (offset < 0 || epoch.isEmpty() && offset != 0) {
            throw new IllegalArgumentException("not a position: epoch '" + epoch + "', offset " + offset);
        }
    }

    /**
     * @param message a delivered message
     * @return its position from {@code ext.position}, or null if it has none (or one of another shape)
     */
    public static ChannelPosition of(Message message) {
        Map<String, Object> ext = message.getExt();
        Object position = ext == null ? null : ext.get(FIELD);
        if (position instanceof Map<?, ?> fields) {
            Object offset = fields.get("offset");
            Object epoch = fields.get("epoch");
            if (offset instanceof Number number && epoch instanceof String name && !name.isEmpty()
                    && number.longValue() >= 1) {
                return new ChannelPosition(name, number.longValue());
            }
        }
        return null;
    }

    /** @return {@code <epoch>:<offset>}, the form {@link #parse} reads */
    @Override
    public String toString() {
        return epoch + ":" + offset;
    }

    /**
     * @param text {@code <epoch>:<offset>}, as {@link #toString()} writes it
     * @return the position
     * @throws IllegalArgumentException if the text is not one
     */
    public static ChannelPosition parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("not a position: '" + text + "'");
        }
        try {
            return new ChannelPosition(text.substring(0, colon), Long.parseLong(text.substring(colon + 1)));
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException("not a position: '" + text + "'", notANumber);
        }
    }
}
