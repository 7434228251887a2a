package org.bayeux.transport.servlet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.bayeux.transport.http.BodyTooLargeException;
import org.bayeux.transport.http.HttpExchange;

/**
 * An {@link HttpExchange} over an asynchronous servlet request, with non-blocking reads and writes: no container
 * thread waits for a slow client.
 */
final class ServletHttpExchange implements HttpExchange, AsyncListener {
    /** Bodies up to this many times the limit are read and discarded before the 413, so the client sees it. */
    private static final int OVERSIZE_DRAIN_FACTOR = 4;

    private final AsyncContext async;
    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final CopyOnWriteArrayList<Consumer<Throwable>> failureListeners = new CopyOnWriteArrayList<>();
    private Map<String, String> query;

    ServletHttpExchange(AsyncContext async) {
        this.async = async;
        this.request = (HttpServletRequest) async.getRequest();
        this.response = (HttpServletResponse) async.getResponse();
        async.addListener(this);
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public String queryParameter(String name) {
        // Parsed by hand: getParameter() would read a form-encoded body, which the transport reads itself.
        if (query == null) {
            query = new java.util.HashMap<>();
            String text = request.getQueryString();
            if (text != null) {
                for (String pair : text.split("&")) {
                    int equals = pair.indexOf('=');
                    String key = decode(equals < 0 ? pair : pair.substring(0, equals));
                    String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
                    query.merge(key, value, String::concat);
                }
            }
        }
        return query.get(name);
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return text;
        }
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie cookie : cookies) {
                if (cookie.getName().equals(name)) {
                    return cookie.getValue();
                }
            }
        }
        return null;
    }

    @Override
    public boolean isMultiplexed() {
        String protocol = request.getProtocol();
        return protocol != null && (protocol.startsWith("HTTP/2") || protocol.startsWith("HTTP/3"));
    }

    @Override
    public boolean isSecure() {
        return request.isSecure();
    }

    @Override
    public String serverName() {
        return request.getServerName();
    }

    @Override
    public int serverPort() {
        return request.getServerPort();
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public CompletionStage<byte[]> readBody(int maxBytes) {
        CompletableFuture<byte[]> body = new CompletableFuture<>();
        readBody(maxBytes, body::complete, body::completeExceptionally);
        return body;
    }

    private void readBody(int maxBytes, Consumer<byte[]> onBody, Consumer<Throwable> onFailure) {
        if (request.getContentLengthLong() > (long) maxBytes * OVERSIZE_DRAIN_FACTOR) {
            onFailure.accept(new BodyTooLargeException(maxBytes));
            return;
        }
        try {
            ServletInputStream input = request.getInputStream();
            input.setReadListener(new BodyReader(input, maxBytes, onBody, onFailure));
        } catch (IOException | IllegalStateException failure) {
            onFailure.accept(failure);
        }
    }

    /** Reads whatever is available each time the container says so; never blocks. */
    private static final class BodyReader implements ReadListener {
        private final ServletInputStream input;
        private final int maxBytes;
        private final Consumer<byte[]> onBody;
        private final Consumer<Throwable> onFailure;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private final byte[] buffer = new byte[8192];
        private boolean failed;
        private long total;

        BodyReader(ServletInputStream input, int maxBytes, Consumer<byte[]> onBody, Consumer<Throwable> onFailure) {
            this.input = input;
            this.maxBytes = maxBytes;
            this.onBody = onBody;
            this.onFailure = onFailure;
        }

        @Override
        public void onDataAvailable() throws IOException {
            while (!failed && input.isReady()) {
                int read = input.read(buffer);
                if (read < 0) {
                    return;
                }
                total += read;
                if (total > (long) maxBytes * OVERSIZE_DRAIN_FACTOR) {
                    failed = true;
                    onFailure.accept(new BodyTooLargeException(maxBytes));
                    return;
                }
                if (total <= maxBytes) {
                    body.write(buffer, 0, read);
                }
            }
        }

        @Override
        public void onAllDataRead() {
            if (failed) {
                return;
            }
            if (total > maxBytes) {
                // Read to the end and discarded, so that the client, done uploading, reads the 413.
                onFailure.accept(new BodyTooLargeException(maxBytes));
            } else {
                onBody.accept(body.toByteArray());
            }
        }

        @Override
        public void onError(Throwable failure) {
            if (!failed) {
                failed = true;
                onFailure.accept(failure);
            }
        }
    }

    @Override
    public void addHeader(String name, String value) {
        response.addHeader(name, value);
    }

    @Override
    public void addCookie(String name, String value, Map<String, String> attributes) {
        Cookie cookie = new Cookie(name, value);
        cookie.setPath("/");
        cookie.setHttpOnly(true);
        attributes.forEach((key, attributeValue) -> {
            if ("Secure".equalsIgnoreCase(key)) {
                cookie.setSecure(true);
            } else {
                cookie.setAttribute(key, attributeValue);
            }
        });
        response.addCookie(cookie);
    }

    @Override
    public void respond(int status, String contentType, byte[] body) {
        response.setStatus(status);
        if (contentType != null) {
            response.setContentType(contentType);
        }
        response.setContentLength(body.length);
        try {
            ServletOutputStream output = response.getOutputStream();
            output.setWriteListener(new BodyWriter(output, body));
        } catch (IOException | IllegalStateException failure) {
            notifyFailure(failure);
            async.complete();
        }
    }

    /** Writes the body when the container is ready, then completes the exchange; never blocks. */
    private final class BodyWriter implements WriteListener {
        private final ServletOutputStream output;
        private final byte[] body;
        private boolean written;

        BodyWriter(ServletOutputStream output, byte[] body) {
            this.output = output;
            this.body = body;
        }

        @Override
        public void onWritePossible() throws IOException {
            if (!written) {
                written = true;
                output.write(body);
            }
            if (output.isReady()) {
                async.complete();
            }
        }

        @Override
        public void onError(Throwable failure) {
            notifyFailure(failure);
            async.complete();
        }
    }

    @Override
    public void onFailure(Consumer<Throwable> listener) {
        failureListeners.add(listener);
    }

    private void notifyFailure(Throwable failure) {
        for (Consumer<Throwable> listener : failureListeners) {
            listener.accept(failure);
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        failureListeners.clear();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        notifyFailure(new java.util.concurrent.TimeoutException("Async request timed out"));
        async.complete();
    }

    @Override
    public void onError(AsyncEvent event) {
        notifyFailure(event.getThrowable());
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // Nothing to do: the exchange is created after the request went asynchronous.
    }
}
