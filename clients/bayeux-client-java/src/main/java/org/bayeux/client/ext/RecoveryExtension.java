package org.bayeux.client.ext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of recovery (wire in {@code docs/protocol.md}, "Recovery"): against a server that offers it in its
 * handshake reply ({@code "ext":{"recovery":true}}), remembers the position ({@code ext.position}: offset and epoch)
 * of the last message received on each channel, and sends it with every subscribe to that channel
 * ({@code "ext":{"recovery":{"offset":N,"epoch":"E"}}}, or {@code "recovery":{}} while it has none), so that after a
 * reconnect or a re-handshake, on the same server or another node of its cluster, the server delivers what was
 * missed, once and in order, before the live messages. Positions survive re-handshakes; an unsubscribe forgets its
 * channel's.
 *
 * <p><b>Gaps.</b> With a {@link Host} (the one {@link org.bayeux.client.BayeuxClient} gives it), the extension also
 * checks the offsets of each channel it subscribed to (plain channels only) while the session lives: a message of
 * the same epoch more than one past the last one let through means messages were lost on the way (for example
 * written by the server into a WebSocket that died while the session survived). That message, and the later ones of
 * the channel, are held back from the application, and the channel is subscribed to again with the position of the
 * last one let through (one such recovery at a time per channel). With {@code recovered: true} the missing ones
 * come, and everything is let through in offset order. A subscribe lost with its connection is sent again once the
 * client is connected again (a resubscribe after a re-handshake, which carries the same position, takes its place).
 * With {@code recovered: false}, a subscribe the server refused, more than {@code maxHeld} held, or no end within
 * {@code timeout}, the held messages are let through in order and the gap is accepted ({@link #recovered(String)} is then false, and {@link #gapsLost()} counts it). Messages at or below the
 * last one let through (same epoch) are dropped as duplicates. Messages without a position, of another epoch, or of
 * channels received only through wildcards pass as they come.</p>
 *
 * <p>{@link org.bayeux.client.BayeuxClient} adds one by itself unless
 * {@link org.bayeux.client.BayeuxClientConfig.Builder#recovery(boolean) recovery} is off; against a server that does
 * not offer recovery it adds nothing to any message and holds nothing back. The outcome of the last recovery of a
 * channel is {@link #recovered(String)}, and is in the subscribe reply ({@code ext.recovery.recovered}).</p>
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
    /** The field of a failed reply the client made itself (the request got no answer). */
    private static final String FAILURE_FIELD = "failure";
    /** How many messages of one channel are held back at most while a gap is recovered (the server recovers 1,000). */
    public static final int DEFAULT_MAX_HELD = 1000;
    /** How many channels' positions are kept at most, unless told otherwise. */
    public static final int DEFAULT_MAX_CHANNELS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(RecoveryExtension.class);

    /**
     * A position in a channel.
     *
     * @param offset the channel's offset, from 1 within an epoch
     * @param epoch the history it belongs to
     */
    public record Position(long offset, String epoch) {
    }

    /**
     * What the extension needs of its client to hold messages back and recover gaps; {@link
     * org.bayeux.client.BayeuxClient} provides one. Without it the extension only keeps and sends positions.
     */
    public interface Host {
        /**
         * Sends a {@code /meta/subscribe} to the channel (the extension adds the position as it goes out); its reply,
         * or a failure made by the client, comes back through {@link #rcvMeta}.
         *
         * @param channel a plain channel the client is subscribed to
         */
        void subscribe(String channel);

        /**
         * Lets held messages through to the application, in this order, after the message being handled (if any);
         * they pass the extensions after this one.
         *
         * @param messages the messages
         */
        void release(List<Message.Mutable> messages);

        /**
         * Runs a task after a delay, in the order the client handles incoming messages (never while one is handled).
         *
         * @param task the task
         * @param delay the delay
         * @return what cancels it
         */
        Runnable schedule(Runnable task, Duration delay);
    }

    /** One channel's position, and the recovery of a gap in it; guarded by the extension. */
    private static final class Track {
        /** Subscribed to as a plain channel: gaps are recovered. */
        boolean plain;
        String epoch;
        /** The offset of the last message let through. */
        long last;
        /** After a failed recovery: offsets up to this one pass without counting as a gap (the server's held ones). */
        long accepted;
        final TreeMap<Long, Message.Mutable> held = new TreeMap<>();
        boolean recovering;
        /** The id of the subscribe whose reply ends the recovery; null until it goes out. */
        String awaiting;
        /** Its subscribe was lost with its connection: sent again once the client is connected again. */
        boolean resend;
        /** The id of the subscribe of a recovery that ended without its reply: its outcome is not taken. */
        String ignored;
        Runnable cancel;
        int generation;

        Position position() {
            return epoch == null ? null : new Position(Math.max(last, accepted), epoch);
        }
    }

    private final Host host;
    private final Duration timeout;
    private final int maxHeld;
    private final int maxChannels;
    /**
     * Per channel, least recently used first (access order): bounded by {@code maxChannels}, as a wildcard
     * subscription may receive ever new channels. Guarded by {@code this}.
     */
    private final LinkedHashMap<String, Track> tracks = new LinkedHashMap<>(16, 0.75f, true);
    private final AtomicLong tracksEvicted = new AtomicLong();
    /** Guarded by {@code this}. */
    private final Map<String, Boolean> outcomes = new HashMap<>();
    private final AtomicLong gapsDetected = new AtomicLong();
    private final AtomicLong gapsRecovered = new AtomicLong();
    private final AtomicLong gapsLost = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private volatile boolean offered;

    /** Creates the extension without gap recovery (it keeps and sends positions only). */
    public RecoveryExtension() {
        this(null, Duration.ofSeconds(20), DEFAULT_MAX_HELD, DEFAULT_MAX_CHANNELS);
    }

    /**
     * Creates the extension with gap recovery, keeping at most {@link #DEFAULT_MAX_CHANNELS} channels' positions.
     *
     * @param host what holds messages back, lets them through, and subscribes again; null for none
     * @param timeout the longest a gap is held open; above 0
     * @param maxHeld the most messages of one channel held back; at least 1
     */
    public RecoveryExtension(Host host, Duration timeout, int maxHeld) {
        this(host, timeout, maxHeld, DEFAULT_MAX_CHANNELS);
    }

    /**
     * Creates the extension with gap recovery; {@link org.bayeux.client.BayeuxClient} makes one by itself.
     *
     * @param host what holds messages back, lets them through, and subscribes again; null for none
     * @param timeout the longest a gap is held open; above 0
     * @param maxHeld the most messages of one channel held back; at least 1
     * @param maxChannels the most channels whose position is kept, those received through a wildcard included; past
     *                    it the least recently used one's is forgotten (a gap it was recovering is given up); at
     *                    least 1
     */
    public RecoveryExtension(Host host, Duration timeout, int maxHeld, int maxChannels) {
        if (maxChannels < 1) {
            throw new IllegalArgumentException("maxChannels must be at least 1, not " + maxChannels);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The recovery timeout must be above 0, not " + timeout);
        }
        if (maxHeld < 1) {
            throw new IllegalArgumentException("maxHeld must be at least 1, not " + maxHeld);
        }
        this.host = host;
        this.timeout = timeout;
        this.maxHeld = maxHeld;
        this.maxChannels = maxChannels;
    }

    /** @return how many channels' positions are kept now (at most {@code maxChannels}) */
    public synchronized int channels() {
        return tracks.size();
    }

    /** @return how many channels' positions were forgotten to stay within {@code maxChannels} */
    public long channelsForgotten() {
        return tracksEvicted.get();
    }

    /**
     * @param channel a channel
     * @param release where the held messages of an evicted channel's recovery go, to be let through
     * @return the channel's track, made (and the least recently used one forgotten past the bound) if new
     */
    private Track track(String channel, List<Message.Mutable> release) {
        Track track = tracks.get(channel);
        if (track != null) {
            return track;
        }
        track = new Track();
        tracks.put(channel, track);
        var eldest = tracks.entrySet().iterator();
        while (tracks.size() > maxChannels && eldest.hasNext()) {
            Map.Entry<String, Track> entry = eldest.next();
            if (entry.getValue() == track) {
                continue;
            }
            eldest.remove();
            Track evicted = entry.getValue();
            tracksEvicted.incrementAndGet();
            outcomes.remove(entry.getKey());
            if (evicted.recovering || !evicted.held.isEmpty()) {
                release.addAll(giveUp(entry.getKey(), evicted, "its channel's position was forgotten (more than "
                        + maxChannels + " channels)"));
            }
            if (evicted.cancel != null) {
                evicted.cancel.run();
                evicted.cancel = null;
            }
        }
        return track;
    }

    /** @return true if the last handshake reply offered recovery */
    public boolean isOffered() {
        return offered;
    }

    /**
     * @param channel a channel
     * @return the position of the last message let through on it (or the server's, after a failed recovery), if any
     */
    public synchronized Optional<Position> position(String channel) {
        Track track = tracks.get(channel);
        return Optional.ofNullable(track == null ? null : track.position());
    }

    /**
     * @param channel a channel
     * @return the outcome of the last recovery of it (a subscribe that sent a position, or a gap): true if everything
     *         missed was delivered, false if not (history no longer covered it, its epoch changed, or a gap was
     *         given up); empty if none
     */
    public synchronized Optional<Boolean> recovered(String channel) {
        return Optional.ofNullable(outcomes.get(channel));
    }

    /** @return how many gaps in offsets were seen (each starts a recovery) */
    public long gapsDetected() {
        return gapsDetected.get();
    }

    /** @return how many gaps were filled by a recovery */
    public long gapsRecovered() {
        return gapsRecovered.get();
    }

    /** @return how many gaps were given up: the messages missing in them never reached the application */
    public long gapsLost() {
        return gapsLost.get();
    }

    /** @return how many messages were dropped because one with the same position was let through already */
    public long duplicatesDropped() {
        return duplicates.get();
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
            List<Message.Mutable> release = new ArrayList<>();
            synchronized (this) {
                Track track = track((String) subscription, release);
                track.plain = true;
                if (track.recovering) {
                    // This subscribe (ours, or a resubscribe after a re-handshake) carries the position the held
                    // messages wait on: its reply ends the recovery.
                    track.awaiting = message.getId();
                    track.resend = false;
                }
                Position position = track.position();
                if (position != null) {
                    recovery.put(OFFSET_FIELD, position.offset());
                    recovery.put(EPOCH_FIELD, position.epoch());
                }
            }
            message.getExt(true).put(RECOVERY_FIELD, recovery);
            release(release);
        } else if (Message.META_UNSUBSCRIBE.equals(channel)) {
            synchronized (this) {
                Track track = tracks.remove(subscription);
                if (track != null && track.cancel != null) {
                    track.cancel.run();
                }
                outcomes.remove(subscription);
            }
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
        } else if (Message.META_CONNECT.equals(channel) && message.isSuccessful() && host != null) {
            resendLost();
        } else if (Message.META_SUBSCRIBE.equals(channel)
                && message.get(Message.SUBSCRIPTION_FIELD) instanceof String) {
            List<Message.Mutable> release;
            synchronized (this) {
                release = subscribeReply((String) message.get(Message.SUBSCRIPTION_FIELD), message,
                        recovery instanceof Map ? (Map<?, ?>) recovery : null);
            }
            release(release);
        }
        return true;
    }

    /** Connected again: the recoveries whose subscribe was lost with the connection send it again. */
    private void resendLost() {
        List<String> again = null;
        synchronized (this) {
            for (Map.Entry<String, Track> entry : tracks.entrySet()) {
                Track track = entry.getValue();
                if (track.recovering && track.resend) {
                    track.resend = false;
                    if (again == null) {
                        again = new ArrayList<>();
                    }
                    again.add(entry.getKey());
                }
            }
        }
        if (again != null) {
            again.forEach(host::subscribe);
        }
    }

    /** @return the messages to let through */
    private List<Message.Mutable> subscribeReply(String subscription, Message reply, Map<?, ?> outcome) {
        Track track = tracks.get(subscription);
        String id = reply.getId();
        boolean ours = track != null && track.recovering && (track.awaiting == null || track.awaiting.equals(id));
        if (ours && !reply.isSuccessful() && reply.get(FAILURE_FIELD) != null) {
            // Lost with its connection, not refused: the held messages wait for the client to be connected again
            // (or for a re-handshake, whose resubscribe carries the same position), within the timeout.
            track.awaiting = null;
            track.resend = true;
            return List.of();
        }
        if (!reply.isSuccessful() || outcome == null) {
            return ours ? giveUp(subscription, track, "its subscribe failed") : List.of();
        }
        Object recovered = outcome.get(RECOVERED_FIELD);
        Position current = positionOf(outcome);
        List<Message.Mutable> release = new ArrayList<>();
        if (track == null) {
            track = track(subscription, release);
        }
        if (!(id != null && id.equals(track.ignored)) && recovered instanceof Boolean) {
            outcomes.put(subscription, (Boolean) recovered);
        }
        if (ours && !(Boolean.TRUE.equals(recovered) && current != null && current.epoch().equals(track.epoch))) {
            release.addAll(giveUp(subscription, track, "the server could not recover it"));
        } else if (ours) {
            // Everything after our position comes now, then live ones: the held ones are let through as the
            // missing ones arrive. A fresh timeout covers the recovered messages being lost in turn.
            restartTimer(subscription, track);
            return release;
        }
        if (current != null && !track.recovering) {
            if (track.epoch == null || !track.epoch.equals(current.epoch())) {
                // Of another epoch (or none yet): the server's position is ours; what comes next may start anywhere
                // up to one past it (live messages the server held during the subscribe come after the reply).
                track.epoch = current.epoch();
                track.last = 0;
                track.accepted = current.offset();
            } else if (Boolean.FALSE.equals(recovered) && current.offset() > track.position().offset()) {
                track.accepted = current.offset();
            }
        }
        return release;
    }

    @Override
    public boolean rcv(ClientSession session, Message.Mutable message) {
        Map<String, Object> ext = message.getExt();
        Position received = ext == null ? null : positionOf(ext.get(POSITION_FIELD));
        String channel = message.getChannel();
        if (received == null || channel == null) {
            return true;
        }
        List<Message.Mutable> release = new ArrayList<>();
        boolean pass;
        boolean startRecovery = false;
        synchronized (this) {
            Track track = track(channel, release);
            if (track.epoch == null || !track.epoch.equals(received.epoch())) {
                // A new epoch (or the first position): what is held of the old one goes first, in order.
                if (track.recovering) {
                    release.addAll(giveUp(channel, track, "its epoch changed"));
                }
                track.epoch = received.epoch();
                track.last = received.offset();
                track.accepted = 0;
                pass = release.isEmpty();
                if (!pass) {
                    release.add(message);
                }
            } else if (host == null || !track.plain) {
                // Without gap recovery (or through a wildcard only) messages pass as they come; the position moves up.
                track.last = Math.max(track.last, received.offset());
                pass = true;
            } else {
                long offset = received.offset();
                if (offset <= track.last || track.held.containsKey(offset)) {
                    duplicates.incrementAndGet();
                    pass = false;
                } else if (offset == track.last + 1 || track.held.isEmpty() && offset <= track.accepted + 1) {
                    track.last = offset;
                    pass = true;
                    release.addAll(releaseFollowing(channel, track));
                } else if (track.held.size() >= maxHeld) {
                    track.held.put(offset, message);
                    release.addAll(giveUp(channel, track, "more than " + maxHeld + " messages held"));
                    pass = false;
                } else {
                    track.held.put(offset, message);
                    pass = false;
                    if (!track.recovering) {
                        startRecovery = true;
                        track.recovering = true;
                        track.awaiting = null;
                        gapsDetected.incrementAndGet();
                        restartTimer(channel, track);
                        if (LOG.isDebugEnabled()) {
                            LOG.debug("Gap in {}: offset {} after {}; recovering", channel, offset, track.last);
                        }
                    }
                }
            }
        }
        if (startRecovery) {
            host.subscribe(channel);
        }
        release(release);
        return pass;
    }

    /** @return the held messages that now follow on (ending the recovery once none is held) */
    private List<Message.Mutable> releaseFollowing(String channel, Track track) {
        if (track.held.isEmpty()) {
            if (track.last >= track.accepted) {
                track.accepted = 0;
            }
            return List.of();
        }
        List<Message.Mutable> release = new ArrayList<>();
        while (!track.held.isEmpty() && track.held.firstKey() <= track.last + 1) {
            Map.Entry<Long, Message.Mutable> first = track.held.pollFirstEntry();
            if (first.getKey() <= track.last) {
                duplicates.incrementAndGet();
            } else {
                track.last = first.getKey();
                release.add(first.getValue());
            }
        }
        if (track.last >= track.accepted) {
            track.accepted = 0;
        }
        if (track.recovering && track.held.isEmpty()) {
            end(track);
            gapsRecovered.incrementAndGet();
            outcomes.put(channel, Boolean.TRUE);
            LOG.debug("Gap in {} recovered", channel);
        }
        return release;
    }

    /** Ends a recovery without the missing messages: the held ones go, in order, and the gap is accepted. */
    private List<Message.Mutable> giveUp(String channel, Track track, String why) {
        List<Message.Mutable> release = new ArrayList<>(track.held.values());
        if (!track.held.isEmpty()) {
            track.last = Math.max(track.last, track.held.lastKey());
        }
        track.held.clear();
        if (track.recovering) {
            track.ignored = track.awaiting;
            end(track);
            gapsLost.incrementAndGet();
            outcomes.put(channel, Boolean.FALSE);
            LOG.info("Messages of {} were lost on the way and could not be recovered ({}); {} held back let through",
                    channel, why, release.size());
        }
        return release;
    }

    private void end(Track track) {
        track.recovering = false;
        track.awaiting = null;
        track.resend = false;
        track.generation++;
        if (track.cancel != null) {
            track.cancel.run();
            track.cancel = null;
        }
    }

    private void restartTimer(String channel, Track track) {
        if (track.cancel != null) {
            track.cancel.run();
        }
        int generation = ++track.generation;
        track.cancel = host.schedule(() -> expire(channel, track, generation), timeout);
    }

    private void expire(String channel, Track track, int generation) {
        List<Message.Mutable> release;
        synchronized (this) {
            if (tracks.get(channel) != track || track.generation != generation || !track.recovering) {
                return;
            }
            track.cancel = null;
            release = giveUp(channel, track, "no recovery within " + timeout.toMillis() + " ms");
        }
        release(release);
    }

    private void release(List<Message.Mutable> messages) {
        if (!messages.isEmpty()) {
            host.release(messages);
        }
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
    public synchronized String toString() {
        return "RecoveryExtension[offered: " + offered + ", channels: " + tracks.size() + "]";
    }
}
