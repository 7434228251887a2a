package org.bayeux.server.ext;

import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * The {@code timestamp} extension: stamps each outgoing delivery that has no {@code timestamp} field with the
 * current time in RFC 1123 GMT form, for example {@code Tue, 05 Mar 2024 10:00:00 GMT}. Add it with
 * {@code server.addExtension(new TimestampExtension())}.
 *
 * <p>A broadcast is stamped once, before it is frozen and shared by its recipients, so they all see the same
 * time. A {@code timestamp} the publisher sent is relayed as it is, never checked or rewritten. Replies (meta
 * replies and publish replies) are not stamped: only messages that carry {@code data}.</p>
 */
public final class TimestampExtension implements ServerExtension {
    /**
     * RFC 1123 as HTTP uses it: a two-digit day and the literal zone {@code GMT}. The JDK's
     * {@link DateTimeFormatter#RFC_1123_DATE_TIME} writes a one-digit day for the first nine days.
     */
    static final DateTimeFormatter RFC_1123_GMT = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final Clock clock;

    /** Creates the extension on the system clock. */
    public TimestampExtension() {
        this(Clock.systemUTC());
    }

    /**
     * @param clock the clock to stamp with (tests pass a fixed one)
     */
    TimestampExtension(Clock clock) {
        this.clock = clock;
    }

    /**
     * Stamps a delivery that has no time stamp yet.
     *
     * @param sender the session the message is from, or null
     * @param receiver the receiving session, or null for a broadcast
     * @param message an outgoing message
     * @return always true
     */
    @Override
    public boolean send(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message) {
        if (message.isPublish() && !message.containsKey(Message.TIMESTAMP_FIELD) && !message.isFrozen()) {
            message.put(Message.TIMESTAMP_FIELD, RFC_1123_GMT.format(clock.instant()));
        }
        return true;
    }
}
