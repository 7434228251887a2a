package org.bayeux.client.ext;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;

/**
 * The client side of recovery (wire in {@code docs/protocol.md}, "Recovery"): against a server that offers it in its
 * handshake reply ({@code "ext":{"recovery":true}}), remembers the position ({@code ext.position}: offset and epoch)
 * of the last message received on each channel, and sends it with every subscribe to that channel
 * ({@code "ext":{"recovery":{"offset":N,"epoch":"E"}}}, or {@code "recovery":{}} while it has none), so that after a
 * reconnect or a re-handshake, on the same server or another node of its cluster, the server delivers what was
 * missed, once and in order, before the live messages. Positions survive re-handshakes; an unsubscribe forgets its
 * channel's.
 *
 * <p>{@link org.bayeux.client.BayeuxClient} adds one by itself unless
 * {@link org.bayeux.client.BayeuxClientConfig.Builder#recovery(boolean) recovery} is off; against a server that does
 * not offer recovery it adds nothing to any message. The outcome of the last subscribe to a channel is
 * {@link #recovered(String)}, and is in the subscribe reply ({@code ext.recovery.recovered}). Only subscriptions to
 * plain channels recover (not wildcards).</p>
 */
public final class RecoveryExtension implements ClientSession.Extension {
    /** The field of {@code ext} in handshake replies, subscribes and subscribe replies. */
    public static final String RECOVERY_FIELD = "recovery";
    /** The field of a delivered message's {@code ext} holding its position. */
    public static final String POSITION_FIELD = "position";
    /** A position's offset field. */
    public static final String OFFSET_FIELD = "offset";
    /** A position's epoch field. */
    public static final String EPOCH_FIELD = "epoch";
    /** The subscribe reply's {@code ext.recovery} field telling whether everything missed was delivered. */
    public static final String RECOVERED_FIELD = "recovered";

    /**
     * A position in a channel.
     *
     * @param offset the channel's offset, from 1 within an epoch
     * @param epoch the history it belongs to
     */
    public record Position(long offset, String epoch) {
    }

    private final ConcurrentMap<String, Position> positions = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Boolean> outcomes = new ConcurrentHashMap<>();
    private volatile boolean offered;

    /** Creates the extension; {@link org.bayeux.client.BayeuxClient} makes one by itself. */
    public RecoveryExtension() {
    }

    /** @return true if the last handshake reply offered recovery */
    public boolean isOffered() {
        return offered;
    }

    /**
     * @param channel a channel
     * @return the position of the last message received on it, if any
     */
    public Optional<Position> position(String channel) {
        return Optional.ofNullable(positions.get(channel));
    }

    /**
     * @param channel a channel
     * @return the outcome of the last subscribe to it that sent a position: true if everything missed was
     *         delivered, false if history no longer covered it (or its epoch changed); empty if none did
     */
    public Optional<Boolean> recovered(String channel) {
        return Optional.ofNullable(outcomes.get(channel));
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        Object subscription = message.get(Message.SUBSCRIPTION_FIELD);
        if (!(subscription instanceof String)) {
            return true;
        }
        if (Message.META_SUBSCRIBE.equals(channel) && offered && isPlain((String) subscription)) {
            Map<String, Object> recovery = new LinkedHashMap<>();
            Position position = positions.get(subscription);
            if (position != null) {
                recovery.put(OFFSET_FIELD, position.offset());
                recovery.put(EPOCH_FIELD, position.epoch());
            }
            message.getExt(true).put(RECOVERY_FIELD, recovery);
        } else if (Message.META_UNSUBSCRIBE.equals(channel)) {
            positions.remove(subscription);
            outcomes.remove(subscription);
        }
        return true;
    }

    private static boolean isPlain(String name) {
        return ChannelId.isValid(name) && ChannelId.of(name).isBroadcast() && !ChannelId.of(name).isWildcard();
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        Map<String, Object> ext = message.getExt();
        Object recovery = ext == null ? null : ext.get(RECOVERY_FIELD);
        if (Message.META_HANDSHAKE.equals(channel)) {
            if (message.isSuccessful()) {
                offered = Boolean.TRUE.equals(recovery);
            }
        } else if (Message.META_SUBSCRIBE.equals(channel) && message.isSuccessful() && recovery instanceof Map
                && message.get(Message.SUBSCRIPTION_FIELD) instanceof String) {
            String subscription = (String) message.get(Message.SUBSCRIPTION_FIELD);
            Map<?, ?> outcome = (Map<?, ?>) recovery;
            if (outcome.get(RECOVERED_FIELD) instanceof Boolean) {
                outcomes.put(subscription, (Boolean) outcome.get(RECOVERED_FIELD));
            }
            Position current = positionOf(outcome);
            if (current != null) {
                // The server's position when it answered: taken when ours is of another epoch (nothing recovered)
                // or missing; the missed messages themselves move ours forward as they arrive.
                // A recovery that failed leaves ours behind for good: the server's is then taken if it is further.
                boolean failed = Boolean.FALSE.equals(outcome.get(RECOVERED_FIELD));
                positions.compute(subscription, (name, ours) -> ours == null
                        || !ours.epoch().equals(current.epoch())
                        || failed && current.offset() > ours.offset() ? current : ours);
            }
        }
        return true;
    }

    @Override
    public boolean rcv(ClientSession session, Message.Mutable message) {
        Map<String, Object> ext = message.getExt();
        Position received = ext == null ? null : positionOf(ext.get(POSITION_FIELD));
        String channel = message.getChannel();
        if (received != null && channel != null) {
            positions.compute(channel, (name, ours) -> ours == null || !ours.epoch().equals(received.epoch())
                    || received.offset() > ours.offset() ? received : ours);
        }
        return true;
    }

    private static Position positionOf(Object value) {
        if (!(value instanceof Map)) {
            return null;
        }
        Object offset = ((Map<?, ?>) value).get(OFFSET_FIELD);
        Object epoch = ((Map<?, ?>) value).get(EPOCH_FIELD);
        return offset instanceof Number && epoch instanceof String
                ? new Position(((Number) offset).longValue(), (String) epoch) : null;
    }

    @Override
    public String toString() {
        return "RecoveryExtension[offered: " + offered + ", channels: " + positions.size() + "]";
    }
}
