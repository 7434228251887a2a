package org.bayeux.oort;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Logs refusals without letting whoever causes them flood the log: at most one line per period, which says how
 * many more were refused since the last line. Each kind of refusal has its own instance (refused joins, refused
 * forwards, messages too large to forward), so that one kind never hides another. What a refused join claims (its
 * URL) is the sender's text, so it is cut short and stripped of control characters before it reaches the log.
 */
final class RefusalLog {
    static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final int MAX_CLAIM_CHARS = 200;

    private final Consumer<String> warn;
    private final LongSupplier nanoClock;
    private long lastLineNanos;
    private boolean logged;
    private long suppressed;

    /**
     * @param warn where a line goes (the logger's warn)
     * @param nanoClock the clock, {@link System#nanoTime} but in tests
     */
    RefusalLog(Consumer<String> warn, LongSupplier nanoClock) {
        this.warn = warn;
        this.nanoClock = nanoClock;
    }

    /** @param claimedUrl what the refused join says it is, possibly null */
    void refused(Object claimedUrl) {
        refused(() -> "Oort refused a join that claims to be " + sanitized(claimedUrl) + ": its proof of the secret"
                + " is not good (wrong secret, stale, replayed or made for another node)");
    }

    /**
     * Logs one refusal, unless a line was logged within the period: then it is only counted, and the next line says
     * how many.
     *
     * @param line the line, made only if it is logged (every text in it from a peer must be {@link #sanitized})
     */
    synchronized void refused(Supplier<String> line) {
        long now = nanoClock.getAsLong();
        if (logged && now - lastLineNanos < PERIOD_NANOS) {
            suppressed++;
            return;
        }
        String more = suppressed == 0 ? "" : " (" + suppressed + " more refused since the last such line)";
        warn.accept(line.get() + more);
        logged = true;
        lastLineNanos = now;
        suppressed = 0;
    }

    static String sanitized(Object claim) {
        if (claim == null) {
            return "nothing";
        }
        String text = String.valueOf(claim);
        StringBuilder clean = new StringBuilder(Math.min(text.length(), MAX_CLAIM_CHARS) + 1);
        for (int i = 0; i < text.length() && clean.length() < MAX_CLAIM_CHARS; i++) {
            char c = text.charAt(i);
            clean.append(Character.isISOControl(c) ? '?' : c);
        }
        if (text.length() > MAX_CLAIM_CHARS) {
            clean.append('…');
        }
        return clean.toString();
    }
}
