package org.bayeux.client.transport;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.json.MalformedJsonException;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.websocket.core.Configuration;
import org.eclipse.jetty.websocket.core.client.CoreClientUpgradeRequest;
import org.eclipse.jetty.websocket.core.client.UpgradeListener;
import org.eclipse.jetty.websocket.core.client.WebSocketCoreClient;
import org.eclipse.jetty.websocket.core.exception.UpgradeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code websocket} transport: one WebSocket per client, opened when the first batch is sent and again after it
 * closes. Each batch is one text frame; replies and deliveries arrive in frames of their own, replies matched to
 * their requests by id. A reply that does not come within its timeout means the socket can no longer be trusted: it
 * is closed, and every message still waiting on it is reported as failed.
 */
public final class WebSocketTransport implements ClientTransport {
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketTransport.class);

    private final TransportContext context;
    private final URI socketUri;
    /** Messages sent and not yet answered, by id. */
    private final Map<String, Awaiting> awaiting = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    /** The open socket, or null; guarded by {@link #lock}. */
    private ClientSocket open;
    /** The socket being opened, or null; guarded by {@link #lock}. */
    private ClientSocket opening;
    /** Frames sent while the socket was opening; guarded by {@link #lock}. */
    private List<String> framesWaitingForOpen = new ArrayList<>();
    private volatile boolean everOpened;

    /**
     * @param context what the transport works with
     */
    public WebSocketTransport(TransportContext context) {
        this.context = context;
        URI http = context.url();
        String scheme = "https".equalsIgnoreCase(http.getScheme()) ? "wss" : "ws";
        this.socketUri = URI.create(scheme + http.toString().substring(http.getScheme().length()));
    }

    @Override
    public String name() {
        return WEBSOCKET;
    }

    @Override
    public void send(List<Message.Mutable> batch, Duration replyTimeout) {
        String json;
        try {
            json = context.codec().toJson(batch);
        } catch (IllegalArgumentException unencodable) {
            context.listener().onFailure(this, batch, unencodable);
            return;
        }
        Scheduler scheduler = context.resources().scheduler();
        for (Message.Mutable message : batch) {
            String id = message.getId();
            Scheduler.Task timer = scheduler.schedule(
                    () -> context.resources().executor().execute(() -> replyTimedOut(id, replyTimeout)), replyTimeout);
            Awaiting previous = awaiting.put(id, new Awaiting(message, timer));
            if (previous != null) {
                previous.timer.cancel();
            }
        }
        ClientSocket target;
        synchronized (lock) {
            target = open;
            if (target == null) {
                framesWaitingForOpen.add(json);
                if (opening == null) {
                    opening = new ClientSocket(this, context.maxIncomingMessageBytes());
                    startOpening(opening, replyTimeout);
                }
                return;
            }
        }
        write(target, json);
    }

    private void startOpening(ClientSocket endpoint, Duration timeout) {
        WebSocketCoreClient client = context.resources().webSocketClient();
        CoreClientUpgradeRequest upgrade = CoreClientUpgradeRequest.from(client, socketUri, endpoint);
        upgrade.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        String cookie = context.cookieHeader();
        upgrade.headers(fields -> {
            context.headers().forEach(fields::put);
            if (cookie != null) {
                fields.put(HttpHeader.COOKIE, cookie);
            }
        });
        Configuration.ConfigurationCustomizer configuration = new Configuration.ConfigurationCustomizer();
        configuration.setIdleTimeout(context.resources().idleTimeout());
        // Frames stay at Jetty's default size: it cuts larger ones, and ClientSocket joins them up to the limit.
        configuration.setMaxTextMessageSize(context.maxIncomingMessageBytes());
        configuration.setMaxBinaryMessageSize(context.maxIncomingMessageBytes());
        upgrade.setConfiguration(configuration);
        upgrade.addListener(new UpgradeListener() {
            @Override
            public void onHandshakeResponse(Request request, Response response) {
                context.storeCookies(response.getHeaders().getValuesList(HttpHeader.SET_COOKIE));
            }
        });
        try {
            client.connect(upgrade)
                    .whenComplete((session, failure) -> {
                        if (failure != null) {
                            openFailed(endpoint, failure);
                        } else {
                            opened(endpoint);
                        }
                    });
        } catch (IOException | RuntimeException failure) {
            openFailed(endpoint, failure);
        }
    }

    void opened(ClientSocket endpoint) {
        List<String> frames;
        synchronized (lock) {
            if (opening != endpoint) {
                // Closed while it was opening: this socket is not wanted any more.
                endpoint.close(ClientSocket.CLOSE_NORMAL, "closed");
                return;
            }
            opening = null;
            open = endpoint;
            frames = framesWaitingForOpen;
            framesWaitingForOpen = new ArrayList<>();
        }
        everOpened = true;
        for (String frame : frames) {
            write(endpoint, frame);
        }
    }

    private void openFailed(ClientSocket endpoint, Throwable failure) {
        synchronized (lock) {
            if (opening != endpoint) {
                return;
            }
            opening = null;
            framesWaitingForOpen = new ArrayList<>();
        }
        boolean unavailable = !everOpened && isRefusedUpgrade(failure);
        Throwable cause = unavailable ? new WebSocketUnavailableException(failure) : failure;
        failAwaiting(cause);
    }

    /** An HTTP answer other than 101 to the upgrade, as opposed to a network failure. */
    private static boolean isRefusedUpgrade(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UpgradeException refused) {
                int status = refused.getResponseStatusCode();
                if (status > 0 && status != 101) {
                    return true;
                }
            }
        }
        return false;
    }

    private void write(ClientSocket endpoint, String json) {
        endpoint.sendText(json, failure -> {
            LOG.debug("Write failed on {}", endpoint, failure);
            endpoint.abort();
        });
    }

    void received(ClientSocket endpoint, String text) {
        List<Message.Mutable> messages;
        try {
            messages = new ArrayList<>(context.codec().parseMessages(text, MapMessage::new));
        } catch (MalformedJsonException malformed) {
            LOG.warn("Closing the WebSocket to {}: the server sent a frame that is not a Bayeux batch", socketUri,
                    malformed);
            endpoint.close(ClientSocket.CLOSE_BAD_PAYLOAD, "not a Bayeux batch");
            return;
        }
        for (Message message : messages) {
            if (message.isReply() && message.getId() != null) {
                Awaiting answered = awaiting.remove(message.getId());
                if (answered != null) {
                    answered.timer.cancel();
                }
            }
        }
        context.listener().onMessages(this, messages);
    }

    /**
     * The socket closed or failed. Jetty opens the socket (and starts reading it) before it completes the upgrade's
     * future, so a socket can close while it is still {@link #opening}: it must be forgotten then too, or
     * {@link #opened} would make a dead socket the open one, and every later batch would be written into it and
     * wait for replies that never come.
     */
    void closed(ClientSocket endpoint, Throwable cause) {
        synchronized (lock) {
            if (open == endpoint) {
                open = null;
            } else if (opening == endpoint) {
                opening = null;
                framesWaitingForOpen = new ArrayList<>();
            } else {
                return;
            }
        }
        failAwaiting(cause);
    }

    /** @return the socket being opened, or null: for tests */
    ClientSocket openingSocket() {
        synchronized (lock) {
            return opening;
        }
    }

    private void replyTimedOut(String id, Duration replyTimeout) {
        Awaiting timedOut = awaiting.remove(id);
        if (timedOut == null) {
            return;
        }
        TimeoutException cause = new TimeoutException("No reply within " + replyTimeout.toMillis() + " ms");
        context.listener().onFailure(this, List.of(timedOut.message), cause);
        ClientSocket broken;
        boolean stuckOpening;
        synchronized (lock) {
            broken = open;
            stuckOpening = opening != null;
            if (stuckOpening) {
                // The socket never opened: what waits for it would go out late, if ever.
                opening = null;
                framesWaitingForOpen = new ArrayList<>();
            }
            // Not trusted any more: the next batch opens a new socket, even if this one's close is never reported
            // (a socket that has already ended reports nothing when aborted).
            open = null;
        }
        if (stuckOpening || broken != null) {
            failAwaiting(cause);
        }
        if (broken != null) {
            LOG.debug("Closing the WebSocket to {}: a reply timed out", socketUri);
            broken.abort();
        }
    }

    private void failAwaiting(Throwable cause) {
        List<Message.Mutable> failed = new ArrayList<>();
        for (String id : List.copyOf(awaiting.keySet())) {
            Awaiting entry = awaiting.remove(id);
            if (entry != null) {
                entry.timer.cancel();
                failed.add(entry.message);
            }
        }
        if (!failed.isEmpty()) {
            context.listener().onFailure(this, failed, cause);
        }
    }

    @Override
    public void close(Throwable reason) {
        ClientSocket closing;
        synchronized (lock) {
            closing = open;
            open = null;
            opening = null;
            framesWaitingForOpen = new ArrayList<>();
        }
        if (closing != null) {
            closing.close(ClientSocket.CLOSE_NORMAL, "client closed");
        }
        failAwaiting(reason);
    }

    @Override
    public String toString() {
        return "WebSocketTransport[" + socketUri + "]";
    }

    private static final class Awaiting {
        final Message.Mutable message;
        final Scheduler.Task timer;

        Awaiting(Message.Mutable message, Scheduler.Task timer) {
            this.message = message;
            this.timer = timer;
        }
    }
}
