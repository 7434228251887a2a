package org.bayeux.client.transport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.json.MalformedJsonException;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * The {@code long-polling} transport: each batch is an HTTP POST whose response carries the replies, and any
 * deliveries the server adds. A held {@code /meta/connect} is one such request, kept open by the server; other
 * messages go on requests of their own meanwhile.
 */
public final class LongPollingTransport implements ClientTransport {
    private static final String CONTENT_TYPE = "application/json;charset=UTF-8";

    private final TransportContext context;
    private final Set<Request> inFlight = ConcurrentHashMap.newKeySet();

    /**
     * @param context what the transport works with
     */
    public LongPollingTransport(TransportContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return LONG_POLLING;
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
        long timeoutMillis = replyTimeout.toMillis();
        Map<String, String> headers = context.headers();
        String cookie = context.cookieHeader();
        Request request = context.resources().httpClient().newRequest(context.url())
                .method(HttpMethod.POST)
                .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .idleTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .headers(fields -> {
                    headers.forEach(fields::put);
                    if (cookie != null) {
                        fields.put(HttpHeader.COOKIE, cookie);
                    }
                })
                .body(new StringRequestContent(CONTENT_TYPE, json, StandardCharsets.UTF_8));
        inFlight.add(request);
        request.send(new BufferingResponseListener(context.maxIncomingMessageBytes()) {
            @Override
            public void onComplete(Result result) {
                inFlight.remove(request);
                String content = result.isFailed() ? null : getContentAsString(StandardCharsets.UTF_8);
                // Handled on a thread of its own, never inside Jetty's call. Handling a reply sends the next
                // request, under the client's lock, and Jetty may complete other clients' requests inside that
                // send, whose handling takes their own locks: two clients doing so at once deadlocked. The
                // connection is also back in the pool by then, so the next request can reuse it.
                try {
                    context.resources().executor().execute(() -> completed(batch, result, content));
                } catch (RejectedExecutionException stopping) {
                    completed(batch, result, content);
                }
            }
        });
    }

    private void completed(List<Message.Mutable> batch, Result result, String content) {
        if (result.isFailed()) {
            context.listener().onFailure(this, batch, result.getFailure());
            return;
        }
        Response response = result.getResponse();
        context.storeCookies(response.getHeaders().getValuesList(HttpHeader.SET_COOKIE));
        if (response.getStatus() != 200) {
            context.listener().onFailure(this, batch, new HttpStatusException(response.getStatus()));
            return;
        }
        List<Message.Mutable> received;
        try {
            received = new ArrayList<>(context.codec().parseMessages(content, MapMessage::new));
        } catch (MalformedJsonException malformed) {
            context.listener().onFailure(this, batch, malformed);
            return;
        }
        context.listener().onMessages(this, received);
        List<Message.Mutable> unanswered = unanswered(batch, received);
        if (!unanswered.isEmpty()) {
            context.listener().onFailure(this, unanswered, new IOException("The response had no reply to them"));
        }
    }

    /** A request is answered by a message with its id that is a reply (has {@code successful}). */
    private static List<Message.Mutable> unanswered(List<Message.Mutable> batch, List<Message.Mutable> received) {
        Set<String> answered = new HashSet<>();
        for (Message message : received) {
            if (message.isReply() && message.getId() != null) {
                answered.add(message.getId());
            }
        }
        List<Message.Mutable> missing = new ArrayList<>(0);
        for (Message.Mutable request : batch) {
            if (!answered.contains(request.getId())) {
                missing.add(request);
            }
        }
        return missing;
    }

    @Override
    public void close(Throwable reason) {
        for (Request request : List.copyOf(inFlight)) {
            request.abort(reason);
        }
    }

    @Override
    public String toString() {
        return "LongPollingTransport[" + context.url() + "]";
    }
}
