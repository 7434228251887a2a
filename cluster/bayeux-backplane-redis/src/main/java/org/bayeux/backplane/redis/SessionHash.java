package org.bayeux.backplane.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

import org.bayeux.server.cluster.ChannelPosition;

/**
 * The fields of a session's hash in Redis ({@link RedisSessionStore}), and how a hash reads back as a
 * {@link RedisSessionStore.StoredSession}. No field holds the session's id.
 */
final class SessionHash {
    /** {@code s:<channel>}: a subscription. */
    static final String SUBSCRIPTION = "s:";
    /** {@code p:<channel>}: the position the client is known to have. */
    static final String POSITION = "p:";
    /** {@code ss:<channel>}: the channel's position when the subscription took effect. */
    static final String SUBSCRIBED_AT = "ss:";
    /** {@code j:<batch>}: a journal entry, the positions after that batch ({@link #journalEntry}). */
    static final String JOURNAL = "j:";
    /** A journal entry's first line, when it keeps the id of the connect its batch answered (channels start with /). */
    static final String REQUEST = "?";
    /** {@code a:<name>}: a portable attribute. */
    static final String ATTRIBUTE = "a:";
    static final String ACK_BATCH = "ackBatch";
    static final String DELIVERED = "delivered";
    static final String MAX_INTERVAL = "maxInterval";
    /** The node that wrote the hash last. */
    static final String NODE = "node";
    static final String UPDATED = "updated";
    /** The owning node's id; empty once it let the session go. */
    static final String OWNER = "own";
    /** The fencing token. */
    static final String GENERATION = "gen";
    /** Hex SHA-256 of the browser cookie the session is bound to. */
    static final String BROWSER_DIGEST = "bh";
    /** 1 once the client showed its browser cookie. */
    static final String BROWSER_SHOWN = "bs";
    /** 1 if the session negotiated the ack extension. */
    static final String ACKNOWLEDGES = "ackOn";
    /** The newest batch sent. */
    static final String LAST_BATCH = "lb";
    /** 1 if the session is pinned to its handshake's carrier (an adopting node then refuses it over WebSocket). */
    static final String PINNED = "pin";

    private SessionHash() {
    }

    /**
     * @param positions per channel
     * @return them as one compact text: {@code <channel> <epoch>:<offset>} lines (channel names hold no spaces)
     */
    static String journalEntry(Map<String, ChannelPosition> positions, String requestId) {
        StringBuilder text = new StringBuilder(positions.size() * 40 + 16);
        if (isKeptRequestId(requestId)) {
            text.append(REQUEST).append(requestId);
        }
        for (Map.Entry<String, ChannelPosition> position : positions.entrySet()) {
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(position.getKey()).append(' ').append(position.getValue());
        }
        return text.toString();
    }

    /** @return whether a connect's id is kept in a journal entry: a short word, as clients send (one line, no space) */
    static boolean isKeptRequestId(String id) {
        if (id == null || id.isEmpty() || id.length() > 64) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param text what {@link #journalEntry} wrote
     * @return the positions by channel, unchangeable
     */
    static Map<String, ChannelPosition> parseJournalEntry(String text) {
        Map<String, ChannelPosition> positions = new LinkedHashMap<>();
        if (!text.isEmpty()) {
            for (String line : text.split("\n")) {
                if (line.startsWith(REQUEST)) {
                    continue;
                }
                int space = line.lastIndexOf(' ');
                if (space <= 0) {
                    throw new IllegalArgumentException("not a journal entry line: " + line.length() + " chars");
                }
                positions.put(line.substring(0, space), ChannelPosition.parse(line.substring(space + 1)));
            }
        }
        return Collections.unmodifiableMap(positions);
    }

    /**
     * @param text what {@link #journalEntry} wrote
     * @return the connect's id it keeps, or null
     */
    static String requestOf(String text) {
        if (!text.startsWith(REQUEST)) {
            return null;
        }
        int end = text.indexOf('\n');
        return text.substring(REQUEST.length(), end < 0 ? text.length() : end);
    }

    /**
     * @param sessionId the session's id
     * @param fields its hash
     * @return its state as written
     */
    static RedisSessionStore.StoredSession parse(String sessionId, Map<String, byte[]> fields) {
        Set<String> subscriptions = new LinkedHashSet<>();
        Map<String, ChannelPosition> positions = new LinkedHashMap<>();
        Map<String, ChannelPosition> subscribedAt = new LinkedHashMap<>();
        NavigableMap<Long, Map<String, ChannelPosition>> journal = new TreeMap<>();
        Map<Long, String> journalRequests = new java.util.HashMap<>();
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> field : fields.entrySet()) {
            String name = field.getKey();
            if (name.startsWith(SUBSCRIPTION)) {
                subscriptions.add(name.substring(SUBSCRIPTION.length()));
            } else if (name.startsWith(POSITION)) {
                positions.put(name.substring(POSITION.length()), ChannelPosition.parse(text(field.getValue())));
            } else if (name.startsWith(SUBSCRIBED_AT)) {
                subscribedAt.put(name.substring(SUBSCRIBED_AT.length()),
                        ChannelPosition.parse(text(field.getValue())));
            } else if (name.startsWith(JOURNAL)) {
                long batch = Long.parseLong(name.substring(JOURNAL.length()));
                String entry = text(field.getValue());
                journal.put(batch, parseJournalEntry(entry));
                String request = requestOf(entry);
                if (request != null) {
                    journalRequests.put(batch, request);
                }
            } else if (name.startsWith(ATTRIBUTE)) {
                attributes.put(name.substring(ATTRIBUTE.length()), text(field.getValue()));
            }
        }
        String node = fields.containsKey(NODE) ? text(fields.get(NODE)) : null;
        String own = fields.containsKey(OWNER) ? text(fields.get(OWNER)) : "";
        String browserDigest = fields.containsKey(BROWSER_DIGEST) ? text(fields.get(BROWSER_DIGEST)) : null;
        return new RedisSessionStore.StoredSession(sessionId, Set.copyOf(subscriptions), number(fields, DELIVERED, 0),
                number(fields, ACK_BATCH, -1), Map.copyOf(positions),
                Duration.ofMillis(number(fields, MAX_INTERVAL, RedisSessionStore.DEFAULT_MAX_INTERVAL.toMillis())),
                node, number(fields, UPDATED, 0), number(fields, GENERATION, 0), browserDigest,
                number(fields, BROWSER_SHOWN, 0) == 1, Map.copyOf(subscribedAt), number(fields, ACKNOWLEDGES, 0) == 1,
                number(fields, LAST_BATCH, 0), Collections.unmodifiableNavigableMap(journal), Map.copyOf(journalRequests),
                Map.copyOf(attributes),
                own.isEmpty() ? node : own, own.isEmpty(), number(fields, PINNED, 0) == 1);
    }

    static long number(Map<String, byte[]> fields, String name, long otherwise) {
        byte[] value = fields.get(name);
        return value == null ? otherwise : Long.parseLong(text(value));
    }

    static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
