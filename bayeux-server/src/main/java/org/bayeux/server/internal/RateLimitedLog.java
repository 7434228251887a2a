package org.bayeux.server.internal;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

/**
 * Keeps repeated failures from flooding a log: a hostile client can make the same failure happen thousands of times
 * a second. The first occurrence of a kind (its key) is logged at its level, with its stack trace; later ones are
 * only counted, each with its stack trace at DEBUG, and summarised in one line ("N more like this") at most once per
 * interval, when the next one happens.
 *
 * <p>Callers never put message bodies or clientIds in the text: both reach the log at DEBUG only. Keys name the kind
 * of failure (where it happened and the exception's class), not its data; past {@value #MAX_KEYS} keys, new kinds
 * share one key, so memory stays bounded whatever a client sends.</p>
 */
public final class RateLimitedLog {
    /** How often, at most, one kind of failure is summarised. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    static final int MAX_KEYS = 256;
    private static final String OVERFLOW_KEY = "(other kinds)";

    private final Logger logger;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Kind> kinds = new ConcurrentHashMap<>();

    /**
     * @param logger the logger written to
     */
    public RateLimitedLog(Logger logger) {
        this(logger, DEFAULT_INTERVAL, System::nanoTime);
    }

    RateLimitedLog(Logger logger, Duration interval, LongSupplier clock) {
        this.logger = logger;
        this.intervalNanos = interval.toNanos();
        this.clock = clock;
    }

    /**
     * Logs a failure at WARN the first time its key is seen, and rate-limits the rest.
     *
     * @param key the kind of failure, e.g. where it happened and the exception's class; never client data
     * @param format an SLF4J format, without message bodies or clientIds
     * @param arguments its arguments; a last {@link Throwable} is the failure, whose stack trace is logged
     */
    public void warn(String key, String format, Object... arguments) {
        log(true, key, format, arguments);
    }

    /**
     * As {@link #warn}, at INFO: for events that are expected now and then, but not by the thousand.
     *
     * @param key the kind of event; never client data
     * @param format an SLF4J format, without message bodies or clientIds
     * @param arguments its arguments
     */
    public void info(String key, String format, Object... arguments) {
        log(false, key, format, arguments);
    }

    private void log(boolean warn, String key, String format, Object... arguments) {
        Kind kind = kindOf(key);
        if (kind.seen.compareAndSet(false, true)) {
            kind.lastSummaryNanos.set(clock.getAsLong());
            if (warn) {
                logger.warn(format, arguments);
            } else {
                logger.info(format, arguments);
            }
            return;
        }
        kind.unreported.incrementAndGet();
        if (logger.isDebugEnabled()) {
            logger.debug(format, arguments);
        }
        long now = clock.getAsLong();
        long last = kind.lastSummaryNanos.get();
        if (now - last >= intervalNanos && kind.lastSummaryNanos.compareAndSet(last, now)) {
            long count = kind.unreported.getAndSet(0);
            String summary = "{} more like this since the last report ({}s at most apart): " + format;
            Object[] summaryArguments = new Object[arguments.length + 2];
            summaryArguments[0] = count;
            summaryArguments[1] = intervalNanos / 1_000_000_000L;
            // The summary shows the text of the latest occurrence but no stack trace: that went to DEBUG.
            int kept = arguments.length > 0 && arguments[arguments.length - 1] instanceof Throwable
                    ? arguments.length - 1 : arguments.length;
            System.arraycopy(arguments, 0, summaryArguments, 2, kept);
            Object[] trimmed = java.util.Arrays.copyOf(summaryArguments, kept + 2);
            if (warn) {
                logger.warn(summary, trimmed);
            } else {
                logger.info(summary, trimmed);
            }
        }
    }

    private Kind kindOf(String key) {
        Kind kind = kinds.get(key);
        if (kind != null) {
            return kind;
        }
        if (kinds.size() >= MAX_KEYS) {
            return kinds.computeIfAbsent(OVERFLOW_KEY, ignored -> new Kind());
        }
        return kinds.computeIfAbsent(key, ignored -> new Kind());
    }

    /** One kind of failure: whether it was logged yet, and what happened since its last report. */
    private static final class Kind {
        final AtomicBoolean seen = new AtomicBoolean();
        final AtomicLong unreported = new AtomicLong();
        final AtomicLong lastSummaryNanos = new AtomicLong();
    }
}
