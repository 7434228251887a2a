package org.bayeux.client.transport;

import java.io.IOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.CookieStore;
import java.net.HttpCookie;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's cookies: those its server set, and those its user added to {@link #store()}. The {@code Cookie}
 * header for the server is worked out again only when the cookies changed or one of them expired, because the
 * JDK's {@link CookieManager} parses URIs and matches domains and paths on every look-up, and a long-polling client
 * asks for the header on every request.
 */
public final class ClientCookies {
    private static final Logger LOG = LoggerFactory.getLogger(ClientCookies.class);

    private final CountingStore store = new CountingStore(new CookieManager().getCookieStore());
    private final CookieManager manager = new CookieManager(store, CookiePolicy.ACCEPT_ALL);
    private volatile Header header;

    /** @return the cookie store, to read or to add cookies of one's own; changes apply to the next request */
    public CookieStore store() {
        return store;
    }

    /**
     * @param url the server's endpoint
     * @return the value of a {@code Cookie} header for the server, or null if there is no cookie for it
     */
    public String header(URI url) {
        long changes = store.changes.get();
        Header kept = header;
        if (kept != null && kept.changes == changes && kept.url.equals(url) && !kept.anyExpired()) {
            return kept.value;
        }
        try {
            List<HttpCookie> candidates = store.get(url);
            List<String> values = manager.get(url, Map.of()).get("Cookie");
            String value = values == null || values.isEmpty() ? null : String.join("; ", values);
            header = new Header(url, changes, value, candidates);
            return value;
        } catch (IOException | IllegalArgumentException unreadable) {
            LOG.debug("Cannot read the cookies for {}", url, unreadable);
            return null;
        }
    }

    /**
     * Keeps the cookies a server set.
     *
     * @param url the server's endpoint
     * @param setCookieValues the values of the response's {@code Set-Cookie} headers
     */
    public void keep(URI url, List<String> setCookieValues) {
        if (setCookieValues == null || setCookieValues.isEmpty()) {
            return;
        }
        try {
            manager.put(url, Map.of("Set-Cookie", setCookieValues));
        } catch (IOException | IllegalArgumentException unparsable) {
            LOG.debug("Cannot keep the cookies {} of {}", setCookieValues, url, unparsable);
        }
    }

    /** A header worked out, with the cookies it was chosen from, whose expiry ends it. */
    private record Header(URI url, long changes, String value, List<HttpCookie> candidates) {
        boolean anyExpired() {
            for (HttpCookie cookie : candidates) {
                if (cookie.hasExpired()) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The JDK's in-memory store, counting its changes. */
    private static final class CountingStore implements CookieStore {
        private final CookieStore cookies;
        private final AtomicLong changes = new AtomicLong();

        CountingStore(CookieStore cookies) {
            this.cookies = cookies;
        }

        @Override
        public void add(URI uri, HttpCookie cookie) {
            cookies.add(uri, cookie);
            changes.incrementAndGet();
        }

        @Override
        public List<HttpCookie> get(URI uri) {
            return cookies.get(uri);
        }

        @Override
        public List<HttpCookie> getCookies() {
            return cookies.getCookies();
        }

        @Override
        public List<URI> getURIs() {
            return cookies.getURIs();
        }

        @Override
        public boolean remove(URI uri, HttpCookie cookie) {
            boolean removed = cookies.remove(uri, cookie);
            changes.incrementAndGet();
            return removed;
        }

        @Override
        public boolean removeAll() {
            boolean removed = cookies.removeAll();
            changes.incrementAndGet();
            return removed;
        }
    }
}
