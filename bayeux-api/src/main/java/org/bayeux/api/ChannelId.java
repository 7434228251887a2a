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
    /**
     * Where each segment ends in the name: segment {@code i} runs from {@code segmentEnds[i - 1] + 1} (1 for the
     * first) to {@code segmentEnds[i]}. Offsets into the one name keep an id, and every prefix of it, linear in the
     * name's length: no string per segment or per prefix is kept.
     */
    private final int[] segmentEnds;
    private final Wildcard wildcard;

    /** What kind of wildcard, if any, a channel name ends with. */
    public enum Wildcard {
        /** A plain channel name. */
        NONE,
        /** Ends with {@code *}: matches exactly one more segment. */
        SINGLE,
        /** Ends with {@code **}: matches one or more segments. */
        DEEP
    }

    private ChannelId(String name, int[] segmentEnds, Wildcard wildcard) {
        this.name = name;
        this.segmentEnds = segmentEnds;
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
        int count = 0;
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '/') {
                count++;
            }
        }
        int[] ends = new int[count];
        int segment = 0;
        for (int i = 1; i <= name.length(); i++) {
            if (i == name.length() || name.charAt(i) == '/') {
                ends[segment++] = i;
            }
        }
        int lastStart = count == 1 ? 1 : ends[count - 2] + 1;
        int lastLength = name.length() - lastStart;
        Wildcard wildcard = Wildcard.NONE;
        if (lastLength == 1 && name.charAt(lastStart) == '*') {
            wildcard = Wildcard.SINGLE;
        } else if (lastLength == 2 && name.startsWith(DEEP_WILD, lastStart)) {
            wildcard = Wildcard.DEEP;
        }
        return new ChannelId(name, ends, wildcard);
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
            boolean last = i == name.length();
            boolean hasStar = false;
            for (int c = segmentStart; c < i && !hasStar; c++) {
                hasStar = name.charAt(c) == '*';
            }
            if (hasStar) {
                if (!last) {
                    return "a wildcard may only be the last segment";
                }
                int length = i - segmentStart;
                if (!(length <= 2 && name.startsWith(DEEP_WILD.substring(0, length), segmentStart))) {
                    return "a wildcard segment must be exactly '*' or '**'";
                }
            } else {
                for (int c = segmentStart; c < i; c++) {
                    if (!isSegmentChar(name.charAt(c))) {
                        return "character '" + name.charAt(c) + "' not allowed";
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
        return segmentEnds.length;
    }

    /**
     * @param index the segment index, from 0
     * @return the segment at that index, a new string
     */
    public String segment(int index) {
        return name.substring(index == 0 ? 1 : segmentEnds[index - 1] + 1, segmentEnds[index]);
    }

    /** @return the segments, in order, each a new string */
    public List<String> segments() {
        List<String> segments = new ArrayList<>(segmentEnds.length);
        for (int i = 0; i < segmentEnds.length; i++) {
            segments.add(segment(i));
        }
        return Collections.unmodifiableList(segments);
    }

    /**
     * The length of the name's first segments, with their slashes: for {@code /ab/c}, 0 for none, 3 for one
     * ({@code /ab}) and 5 for two. A prefix is {@code name().substring(0, prefixLength(count))}; callers that only
     * compare or hash it can use the offset and avoid the copy.
     *
     * @param count how many segments, from 0 to {@link #depth()}
     * @return the length of the name's prefix made of that many segments
     */
    public int prefixLength(int count) {
        return count == 0 ? 0 : segmentEnds[count - 1];
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
        return segmentEnds[0] == 5 && name.startsWith("meta", 1);
    }

    /** @return true for channels under {@code /service/}, whose messages go to server-side handlers only */
    public boolean isService() {
        return segmentEnds[0] == 8 && name.startsWith("service", 1);
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
                return channel.depth() == depth() && samePrefix(channel, depth() - 1);
            default:
                return channel.depth() >= depth() && samePrefix(channel, depth() - 1);
        }
    }

    private boolean samePrefix(ChannelId other, int count) {
        int length = prefixLength(count);
        return other.prefixLength(count) == length && name.regionMatches(0, other.name, 0, length);
    }

    /**
     * Lists the wildcard names that match this plain channel, nearest first: for {@code /a/b/c} they are
     * {@code /a/b/*}, {@code /a/b/**}, {@code /a/**} and {@code /**}.
     *
     * <p>The names are built on each call and not kept: together they are quadratic in the name's length. Code on a
     * hot path, or facing names from the network, should walk {@link #prefixLength(int)} instead.</p>
     *
     * @return the wildcard names that match this channel; empty if this id is itself a wildcard
     */
    public List<String> wildcardNames() {
        if (isWildcard()) {
            return List.of();
        }
        int depth = depth();
        List<String> result = new ArrayList<>(depth + 1);
        result.add(name.substring(0, prefixLength(depth - 1)) + "/*");
        for (int i = depth - 1; i >= 0; i--) {
            result.add(name.substring(0, prefixLength(i)) + "/**");
        }
        return Collections.unmodifiableList(result);
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
