package org.bayeux.transport.jetty;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.bayeux.transport.http.BodyTooLargeException;
import org.bayeux.transport.http.HttpExchange;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;

/**
 * An {@link HttpExchange} over Jetty's core request, response and callback.
 */
final class JettyHttpExchange implements HttpExchange {
    /** Bodies up to this many times the limit are read and discarded before the 413, so the client sees it. */
    private static final int OVERSIZE_DRAIN_FACTOR = 4;

    private final Request request;
    private final Response response;
    private final Callback callback;
    private final ClosedPollWatcher watcher;
    private volatile ClosedPollWatcher.Watch watch;
    private final AtomicBoolean completed = new AtomicBoolean();
    private final List<Consumer<Throwable>> failureListeners = new CopyOnWriteArrayList<>();
    private Fields query;

    JettyHttpExchange(Request request, Response response, Callback callback, ClosedPollWatcher watcher) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.watcher = watcher;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().get(name);
    }

    @Override
    public String queryParameter(String name) {
        if (query == null) {
            query = Request.extractQueryParameters(request);
        }
        List<String> values = query.getValues(name);
        return values == null || values.isEmpty() ? null : String.join("", values);
    }

    @Override
    public String cookie(String name) {
        // Asked on every request for one cookie: scanning the header is much cheaper than Jetty's full parse into
        // cookie objects, which was a sizeable part of a long-polling server's allocations.
        List<String> headers = request.getHeaders().getValuesList(HttpHeader.COOKIE);
        for (int i = 0; i < headers.size(); i++) {
            String value = CookieHeader.valueOf(headers.get(i), name);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    @Override
    public boolean isMultiplexed() {
        return request.getConnectionMetaData().getHttpVersion().getVersion() >= HttpVersion.HTTP_2.getVersion();
    }

    @Override
    public boolean isSecure() {
        return request.isSecure();
    }

    @Override
    public String serverName() {
        return Request.getServerName(request);
    }

    @Override
    public int serverPort() {
        return Request.getServerPort(request);
    }

    @Override
    public String remoteAddress() {
        return Request.getRemoteAddr(request);
    }

    @Override
    public CompletionStage<byte[]> readBody(int maxBytes) {
        CompletableFuture<byte[]> body = new CompletableFuture<>();
        readBody(maxBytes, body::complete, body::completeExceptionally);
        return body;
    }

    private void readBody(int maxBytes, Consumer<byte[]> onBody, Consumer<Throwable> onFailure) {
        long declared = request.getLength();
        if (declared > maxBytes) {
            if (declared > (long) maxBytes * OVERSIZE_DRAIN_FACTOR) {
                onFailure.accept(new BodyTooLargeException(maxBytes));
                return;
            }
            // Answering while the client still uploads makes Jetty drop the connection, and the client may see a
            // reset instead of the 413; a body up to a few times the limit is read and discarded first.
            Content.Source.consumeAll(request, Callback.from(() -> onFailure.accept(new BodyTooLargeException(maxBytes)),
                    failure -> onFailure.accept(new BodyTooLargeException(maxBytes))));
            return;
        }
        if (declared < 0) {
            // No declared length (a chunked body, as the CometD JS client on Node.js sends): Jetty's own bounded read
            // fails the request at the limit and leaves the rest unread, so the connection dies under the client's
            // next request. Read here instead, and discard an oversized rest as above.
            new UndeclaredLengthBody(maxBytes, onBody, onFailure).run();
            return;
        }
        // The engine's work on a body never blocks, so the promise may run on the thread that read the body.
        Content.Source.asByteArrayAsync(request, maxBytes, Promise.Invocable.from(InvocationType.NON_BLOCKING,
                onBody, onFailure));
    }

    /**
     * Reads a body of undeclared length, keeping up to {@code maxBytes}; past that it reads on and discards, up to
     * {@link #OVERSIZE_DRAIN_FACTOR} times the limit, before reporting the body too large.
     */
    private final class UndeclaredLengthBody implements Runnable {
        private final int maxBytes;
        private final Consumer<byte[]> onBody;
        private final Consumer<Throwable> onFailure;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long total;

        UndeclaredLengthBody(int maxBytes, Consumer<byte[]> onBody, Consumer<Throwable> onFailure) {
            this.maxBytes = maxBytes;
            this.onBody = onBody;
            this.onFailure = onFailure;
        }

        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    onFailure.accept(chunk.getFailure());
                    return;
                }
                ByteBuffer buffer = chunk.getByteBuffer();
                total += buffer.remaining();
                if (total <= maxBytes) {
                    byte[] bytes = new byte[buffer.remaining()];
                    buffer.get(bytes);
                    kept.write(bytes, 0, bytes.length);
                }
                boolean last = chunk.isLast();
                chunk.release();
                if (total > (long) maxBytes * OVERSIZE_DRAIN_FACTOR || (last && total > maxBytes)) {
                    onFailure.accept(new BodyTooLargeException(maxBytes));
                    return;
                }
                if (last) {
                    onBody.accept(kept.toByteArray());
                    return;
                }
            }
        }
    }

    @Override
    public void addHeader(String name, String value) {
        response.getHeaders().add(name, value);
    }

    @Override
    public void addCookie(String name, String value, Map<String, String> attributes) {
        HttpCookie.Builder cookie = HttpCookie.build(name, value).path("/").httpOnly(true);
        attributes.forEach(cookie::attribute);
        Response.addCookie(response, cookie.build());
    }

    @Override
    public void respond(int status, String contentType, byte[] body) {
        if (!completed.compareAndSet(false, true)) {
            // The client closed the connection of this held request meanwhile.
            return;
        }
        ClosedPollWatcher.Watch watching = watch;
        if (watching != null) {
            // Before the response leaves: the client's next request on this connection must not look like a close.
            watching.cancel();
        }
        response.setStatus(status);
        if (contentType != null) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        }
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    @Override
    public void onFailure(Consumer<Throwable> listener) {
        failureListeners.add(listener);
        request.addFailureListener(listener);
    }

    /** The client of a held request closed its connection: fail the exchange, then complete the request. */
    private void clientClosed() {
        if (!completed.compareAndSet(false, true)) {
            return;
        }
        EofException closed = new EofException("client closed a held long poll");
        for (Consumer<Throwable> listener : failureListeners) {
            listener.accept(closed);
        }
        callback.failed(closed);
    }

    @Override
    public void watchForClose() {
        // HTTP/2 and HTTP/3 report a client's reset of its stream to the failure listeners by themselves.
        if (watcher == null || watch != null || isMultiplexed()) {
            return;
        }
        ClosedPollWatcher.Watch started = watcher.watch(request.getConnectionMetaData().getConnection().getEndPoint(),
                this::clientClosed);
        if (started != null) {
            watch = started;
            request.addFailureListener(failure -> started.cancel());
        }
    }
}
