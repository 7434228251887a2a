package org.bayeux.transport.http;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts, per browser (its {@code BAYEUX_BROWSER} cookie), the sessions holding a long poll over HTTP/1.1, where a
 * browser allows only a few connections per host: one tab's held poll must not starve the others.
 */
public final class BrowserRegistry {
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

    private final int maxSessionsPerBrowser;
    private final ConcurrentHashMap<String, Integer> holding = new ConcurrentHashMap<>();
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * @param maxSessionsPerBrowser how many long polls one browser may hold; -1 for no limit
     */
    public BrowserRegistry(int maxSessionsPerBrowser) {
        this.maxSessionsPerBrowser = maxSessionsPerBrowser;
    }

    /** @return a new cookie value: 16 random base-36 characters */
    public String newBrowserId() {
        return randomBrowserId();
    }

    /** @return a new cookie value: 16 random base-36 characters (82 bits) from a {@link SecureRandom} */
    public static String randomBrowserId() {
        char[] id = new char[16];
        for (int i = 0; i < id.length; i++) {
            id[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
        }
        return new String(id);
    }

    /**
     * @param config the transport configuration
     * @param secure whether the request came over TLS, directly or as a trusted forwarding proxy reports it: the
     *        cookie is then {@code Secure}, so that it never travels in clear
     * @return the attributes the browser cookie gets besides {@code Path=/} and {@code HttpOnly}
     */
    public static Map<String, String> cookieAttributes(TransportConfig config, boolean secure) {
        if (config.get(TransportConfig.BROWSER_COOKIE_CROSS_SITE)) {
            return Map.of("SameSite", "None", "Secure", "");
        }
        return secure ? Map.of("Secure", "") : Map.of();
    }

    /**
     * @param browserId the cookie value
     * @return true if one more long poll may be held for this browser; then {@link #release(String)} must follow
     */
    public boolean tryHold(String browserId) {
        if (maxSessionsPerBrowser < 0) {
            return true;
        }
        boolean[] admitted = {false};
        holding.compute(browserId, (id, count) -> {
            int current = count == null ? 0 : count;
            if (current >= maxSessionsPerBrowser) {
                return count;
            }
            admitted[0] = true;
            return current + 1;
        });
        return admitted[0];
    }

    /**
     * @param browserId the cookie value of a hold that {@link #tryHold(String)} admitted
     */
    public void release(String browserId) {
        if (maxSessionsPerBrowser < 0) {
            return;
        }
        // Removing the entry at zero keeps the map as small as the number of browsers holding a poll now.
        holding.computeIfPresent(browserId, (id, count) -> count <= 1 ? null : count - 1);
    }

    /** @return how many browsers hold at least one long poll now */
    public int browsersHolding() {
        return holding.size();
    }
}
