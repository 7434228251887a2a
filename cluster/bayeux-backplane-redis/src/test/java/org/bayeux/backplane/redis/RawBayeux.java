package org.bayeux.backplane.redis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.jetty.util.ajax.JSON;

/**
 * A Bayeux client by hand, over long-polling with the JDK's HTTP client: it sends exactly the messages a test writes
 * (an attacker's crafted {@code ext.recovery}, an idempotency key of someone else's), and keeps the browser cookie
 * the server sets, as a browser would.
 */
final class RawBayeux {
    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new java.net.CookieManager())
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String url;
    private String clientId;
    private int ids;

    RawBayeux(String url) {
        this.url = url;
    }

    /** @return the clientId of the session it handshook */
    String handshake() throws Exception {
        Map<String, Object> reply = send("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}").get(0);
        if (!Boolean.TRUE.equals(reply.get("successful"))) {
            throw new IllegalStateException("handshake refused: " + reply);
        }
        clientId = (String) reply.get("clientId");
        return clientId;
    }

    String clientId() {
        return clientId;
    }

    /**
     * @param channel a plain channel
     * @param recovery the {@code ext.recovery} JSON ({@code {}} for the position only), or null for none
     * @return the subscribe's reply
     */
    Map<String, Object> subscribe(String channel, String recovery) throws Exception {
        String ext = recovery == null ? "" : ",\"ext\":{\"recovery\":" + recovery + "}";
        return reply(send("{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"id\":\"" + (++ids)
                + "\",\"subscription\":\"" + channel + "\"" + ext + "}"), "/meta/subscribe");
    }

    /** @return the reply to a publish of {@code data} carrying {@code ext.idempotencyKey} (if not null) */
    Map<String, Object> publish(String channel, String data, String idempotencyKey) throws Exception {
        String ext = idempotencyKey == null ? "" : ",\"ext\":{\"idempotencyKey\":\"" + idempotencyKey + "\"}";
        return reply(send("{\"channel\":\"" + channel + "\",\"clientId\":\"" + clientId + "\",\"id\":\"" + (++ids)
                + "\",\"data\":\"" + data + "\"" + ext + "}"), channel);
    }

    private static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                return message;
            }
        }
        throw new IllegalStateException("no reply on " + channel + " in " + messages);
    }

    /** @return the recovery outcome of a subscribe reply, or null if it has none */
    @SuppressWarnings("unchecked")
    static Map<String, Object> recoveryOf(Map<String, Object> reply) {
        Object ext = reply.get("ext");
        return ext instanceof Map ? (Map<String, Object>) ((Map<String, Object>) ext).get("recovery") : null;
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> send(String message) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[" + message + "]")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + response.statusCode() + ": " + response.body());
        }
        List<Map<String, Object>> result = new ArrayList<>();
        for (Object each : (Object[]) new JSON().fromJSON(response.body())) {
            result.add((Map<String, Object>) each);
        }
        return result;
    }
}
