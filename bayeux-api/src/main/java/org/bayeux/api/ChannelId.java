package org.bayeux.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The parsed name of a Bayeux channel, such as {@code /chat/room1}, {@code /chat/*} or {@code /meta/connect}.
 *
 * <p>A name is {@code /} followed by one or more segments separated by {@code /}, with no empty segment and no
 * trailing {@code /}. A segment is made of the characters {@code A-Z a-z 0-9} and
 * {@code space ! # $ ( ) + - . @ _ { } ~}. The last segment, and only the last, may instead be the wildcard
 * {@code *} (one more segment) or {@code **} (one or more segments).</p>
 *
 * <p>Instances are immutable and cheap to compare; {@link #equals(Object)} compares names.</p>
 */
public final class ChannelId {
    /** The prefix of the protocol's own channels. */
    public static final String META_PREFIX = "/meta/";
    /** The prefix of channels whose messages go to server-side handlers only. */
    public static final String SERVICE_PREFIX = "/service/";
    /** The single-segment wildcard. */
    public static final String WILD = "*";
    /** The multi-segment wildcard. */
    public static final String DEEP_WILD = "**";

    private final String name;
    private final String[] segments;
    private final Wildcard wildcard;
    /** Computed on first use: a publish walks these for every message. */
    private volatile List<String> wildcardNames;

    /** What kind of wildcard, if any, a channel name ends with. */
    public enum Wildcard {
        /** A plain channel name. */
        NONE,
        /** Ends with {@code *}: matches exactly one more segment. */
        SINGLE,
        /** Ends with {@code **}: matches one or more segments. */
        DEEP
    }

    private ChannelId(String name, String[] segments, Wildcard wildcard) {
        this.name = name;
        this.segments = segments;
        this.wildcard = wildcard;
    }

    /**
     * Parses and validates a channel name.
     *
     * @param name the channel name
     * @return the channel id
     * @throws IllegalArgumentException if the name is not a valid channel name; the message says why
     */
    public static ChannelId of(String name) {
        String problem = problemWith(name);
        if (problem != null) {
            throw new IllegalArgumentException("Invalid channel name '" + name + "': " + problem);
        }
        List<String> parts = new ArrayList<>(4);
        int start = 1;
        for (int i = 1; i <= name.length(); i++) {
            if (i == name.length() || name.charAt(i) == '/') {
                parts.add(name.substring(start, i));
                start = i + 1;
            }
        }
        String last = parts.get(parts.size() - 1);
        Wildcard wildcard = WILD.equals(last) ? Wildcard.SINGLE : DEEP_WILD.equals(last) ? Wildcard.DEEP : Wildcard.NONE;
        return new ChannelId(name, parts.toArray(new String[0]), wildcard);
    }

    /**
     * Tells whether a string is a valid channel name (wildcards included).
     *
     * @param name the candidate name, may be null
     * @return true if {@link #of(String)} would accept it
     */
    public static boolean isValid(String name) {
        return problemWith(name) == null;
    }

    /**
     * Explains why a string is not a valid channel name.
     *
     * @param name the candidate name, may be null
     * @return null if the name is valid, otherwise a short explanation
     */
    public static String problemWith(String name) {
        if (name == null) {
            return "missing";
        }
        if (name.length() < 2 || name.charAt(0) != '/') {
            return "must start with '/' and have at least one segment";
        }
        if (name.charAt(name.length() - 1) == '/') {
            return "must not end with '/'";
        }
        int segmentStart = 1;
        for (int i = 1; i <= name.length(); i++) {
            if (i < name.length() && name.charAt(i) != '/') {
                continue;
            }
            if (i == segmentStart) {
                return "empty segment";
            }
            String segment = name.substring(segmentStart, i);
            boolean last = i == name.length();
            if (segment.indexOf('*') >= 0) {
                if (!last) {
                    return "a wildcard may only be the last segment";
                }
                if (!WILD.equals(segment) && !DEEP_WILD.equals(segment)) {
                    return "a wildcard segment must be exactly '*' or '**'";
                }
            } else {
                for (int c = 0; c < segment.length(); c++) {
                    if (!isSegmentChar(segment.charAt(c))) {
                        return "character '" + segment.charAt(c) + "' not allowed";
                    }
                }
            }
            segmentStart = i + 1;
        }
        return null;
    }

    private static boolean isSegmentChar(char c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            return true;
        }
        switch (c) {
            case ' ': case '!': case '#': case '$': case '(': case ')': case '+': case '-': case '.':
            case '@': case '_': case '{': case '}': case '~':
                return true;
            default:
                return false;
        }
    }

    /** @return the channel name, as given to {@link #of(String)} */
    public String name() {
        return name;
    }

    /** @return the number of segments; {@code /a/b} has 2 */
    public int depth() {
        return segments.length;
    }

    /**
     * @param index the segment index, from 0
     * @return the segment at that index
     */
    public String segment(int index) {
        return segments[index];
    }

    /** @return the segments, in order */
    public List<String> segments() {
        return Collections.unmodifiableList(java.util.Arrays.asList(segments));
    }

    /** @return the kind of wildcard this name ends with */
    public Wildcard wildcard() {
        return wildcard;
    }

    /** @return true if this name ends with {@code *} or {@code **} */
    public boolean isWildcard() {
        return wildcard != Wildcard.NONE;
    }

    /** @return true if this name ends with {@code **} */
    public boolean isDeepWildcard() {
        return wildcard == Wildcard.DEEP;
    }

    /** @return true for the protocol's own channels, under {@code /meta/} */
    public boolean isMeta() {
        return "meta".equals(segments[0]);
    }

    /** @return true for channels under {@code /service/}, whose messages go to server-side handlers only */
    public boolean isService() {
        return "service".equals(segments[0]);
    }

    /** @return true for channels whose messages are broadcast to subscribers: neither meta nor service */
    public boolean isBroadcast() {
        return !isMeta() && !isService();
    }

    /**
     * Tells whether this channel, used as a subscription, matches a plain channel.
     *
     * @param channel a channel without wildcard
     * @return true if this id equals {@code channel}, or is a wildcard that covers it
     */
    public boolean matches(ChannelId channel) {
        switch (wildcard) {
            case NONE:
                return equals(channel);
            case SINGLE:
                return channel.segments.length == segments.length && samePrefix(channel, segments.length - 1);
            default:
                return channel.segments.length >= segments.length && samePrefix(channel, segments.length - 1);
        }
    }

    private boolean samePrefix(ChannelId other, int count) {
        for (int i = 0; i < count; i++) {
            if (!segments[i].equals(other.segments[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lists the wildcard names that match this plain channel, nearest first: for {@code /a/b/c} they are
     * {@code /a/b/*}, {@code /a/b/**}, {@code /a/**} and {@code /**}.
     *
     * @return the wildcard names that match this channel; empty if this id is itself a wildcard
     */
    public List<String> wildcardNames() {
        List<String> names = wildcardNames;
        if (names == null) {
            names = computeWildcardNames();
            wildcardNames = names;
        }
        return names;
    }

    private List<String> computeWildcardNames() {
        if (isWildcard()) {
            return List.of();
        }
        List<String> result = new ArrayList<>(segments.length + 1);
        StringBuilder prefix = new StringBuilder(name.length() + 3);
        String[] prefixes = new String[segments.length];
        for (int i = 0; i < segments.length; i++) {
            prefixes[i] = prefix.toString();
            prefix.append('/').append(segments[i]);
        }
        result.add(prefixes[segments.length - 1] + "/*");
        for (int i = segments.length - 1; i >= 0; i--) {
            result.add(prefixes[i] + "/**");
        }
        return List.copyOf(result);
    }

    /** @return the parent channel id, or null for a single-segment name */
    public ChannelId parent() {
        int slash = name.lastIndexOf('/');
        return slash == 0 ? null : of(name.substring(0, slash));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ChannelId && ((ChannelId) other).name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
