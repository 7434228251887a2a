package org.bayeux.transport.jetty;

import java.net.URI;
import java.util.Collection;

import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.websocket.core.Negotiated;

/**
 * An upgrade request whose URI, as Jetty keeps it for the socket, is shared with the upgrades before it that had the
 * same one.
 *
 * <p>Jetty keeps each WebSocket's upgrade URI for the life of the connection ({@code Negotiated}, made from
 * {@link HttpURI#toURI()} of the upgrade request and turned into its {@code ws:} or {@code wss:} form by
 * {@link Negotiated#toWebsocket(URI)}): a new {@link URI} with five strings, some 370 bytes for each idle socket,
 * the same for thousands of sockets that upgraded at the endpoint's path. This request's {@link HttpURI#toURI()}
 * answers with that WebSocket form directly, and with the same instance as the previous upgrade when the text is
 * the same, which {@link Negotiated#toWebsocket(URI)} then keeps as it is. It is seen only by Jetty's handshake;
 * everything else is the request's own. {@link URI} is immutable, so sharing it changes nothing for its
 * readers.</p>
 */
final class SharedUriRequest extends Request.Wrapper {
    /** The last WebSocket URI made, with the text it was made from; replaced when an upgrade has another one. */
    static final class Cache {
        private volatile Entry last;

        /** @return the WebSocket form of the URI {@code text}, the previous instance if the text is the same */
        URI webSocketUriOf(String text) {
            Entry entry = last;
            if (entry != null && entry.text.equals(text)) {
                return entry.uri;
            }
            URI uri = Negotiated.toWebsocket(URI.create(text));
            last = new Entry(text, uri);
            return uri;
        }

        private record Entry(String text, URI uri) {
        }
    }

    private final HttpURI uri;

    /**
     * @param request the upgrade request
     * @param cache the transport's cache
     */
    SharedUriRequest(Request request, Cache cache) {
        super(request);
        this.uri = new SharingHttpUri(request.getHttpURI(), cache);
    }

    @Override
    public HttpURI getHttpURI() {
        return uri;
    }

    /** The request's {@link HttpURI}, but for {@link #toURI()}, which gives the shared WebSocket form. */
    private static final class SharingHttpUri implements HttpURI {
        private final HttpURI wrapped;
        private final Cache cache;

        SharingHttpUri(HttpURI wrapped, Cache cache) {
            this.wrapped = wrapped;
            this.cache = cache;
        }

        @Override
        public URI toURI() {
            return cache.webSocketUriOf(wrapped.toString());
        }

        @Override
        public Immutable asImmutable() {
            return wrapped.asImmutable();
        }

        @Override
        public String asString() {
            return wrapped.asString();
        }

        @Override
        public String getAuthority() {
            return wrapped.getAuthority();
        }

        @Override
        public String getDecodedPath() {
            return wrapped.getDecodedPath();
        }

        @Override
        public String getCanonicalPath() {
            return wrapped.getCanonicalPath();
        }

        @Override
        public String getFragment() {
            return wrapped.getFragment();
        }

        @Override
        public String getHost() {
            return wrapped.getHost();
        }

        @Override
        public String getParam() {
            return wrapped.getParam();
        }

        @Override
        public String getPath() {
            return wrapped.getPath();
        }

        @Override
        public String getPathQuery() {
            return wrapped.getPathQuery();
        }

        @Override
        public int getPort() {
            return wrapped.getPort();
        }

        @Override
        public String getQuery() {
            return wrapped.getQuery();
        }

        @Override
        public String getScheme() {
            return wrapped.getScheme();
        }

        @Override
        public String getUser() {
            return wrapped.getUser();
        }

        @Override
        public boolean hasAuthority() {
            return wrapped.hasAuthority();
        }

        @Override
        public boolean isAbsolute() {
            return wrapped.isAbsolute();
        }

        @Override
        public boolean isAmbiguous() {
            return wrapped.isAmbiguous();
        }

        @Override
        public boolean hasViolations() {
            return wrapped.hasViolations();
        }

        @Override
        public boolean hasViolation(UriCompliance.Violation violation) {
            return wrapped.hasViolation(violation);
        }

        @Override
        public Collection<UriCompliance.Violation> getViolations() {
            return wrapped.getViolations();
        }

        @Override
        public boolean hasAmbiguousSegment() {
            return wrapped.hasAmbiguousSegment();
        }

        @Override
        public boolean hasAmbiguousEmptySegment() {
            return wrapped.hasAmbiguousEmptySegment();
        }

        @Override
        public boolean hasAmbiguousSeparator() {
            return wrapped.hasAmbiguousSeparator();
        }

        @Override
        public boolean hasAmbiguousParameter() {
            return wrapped.hasAmbiguousParameter();
        }

        @Override
        public boolean hasAmbiguousEncoding() {
            return wrapped.hasAmbiguousEncoding();
        }

        @Override
        public boolean hasUtf16Encoding() {
            return wrapped.hasUtf16Encoding();
        }

        @Override
        public String toString() {
            return wrapped.toString();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof SharingHttpUri sharing ? wrapped.equals(sharing.wrapped) : wrapped.equals(other);
        }

        @Override
        public int hashCode() {
            return wrapped.hashCode();
        }
    }
}
