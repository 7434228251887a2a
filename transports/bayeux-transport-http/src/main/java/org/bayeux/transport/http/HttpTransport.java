package org.bayeux.transport.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;

import org.bayeux.server.transport.BadBatchException;
import org.bayeux.server.transport.CarrierCapabilities;
import org.bayeux.server.transport.ClientBindings;
import org.bayeux.server.transport.IncomingBatch;
import org.bayeux.server.transport.TransportEngine;
import org.bayeux.server.internal.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of Bayeux: routes each request to long-polling (POST), callback-polling (GET with {@code message})
 * or a CORS preflight (OPTIONS), and answers everything else with 400.
 */
public final class HttpTransport {
    /** The name of the long-polling transport. */
    public static final String LONG_POLLING = "long-polling";
    /** Faye's name for long-polling from another origin; served identically. */
    public static final String CROSS_ORIGIN_LONG_POLLING = "cross-origin-long-polling";
    /** The name of the JSONP transport. */
    public static final String CALLBACK_POLLING = "callback-polling";

    private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);
    private static final Pattern CALLBACK_NAME = Pattern.compile("[A-Za-z0-9_$.\\-]{1,64}");
    private static final String DEFAULT_CALLBACK = "jsonpcallback";

    private final TransportEngine engine;
    private final TransportConfig config;
    private final Cors cors;
    private final BrowserRegistry browsers;
    private final SessionLimits limits;
    private final FirstSocketAdoptions adoptions;
    private final CookieBinding binding;
    /** What every long-polling request can do: hold a connect, take piggybacked messages, up to a response's size. */
    private final CarrierCapabilities longPolling;
    /** The same for a JSONP request, whose script answers one batch and takes no piggyback. */
    private final CarrierCapabilities callbackPolling;

    /**
     * @param engine the engine
     * @param config the transport configuration
     */
    public HttpTransport(TransportEngine engine, TransportConfig config) {
        this.engine = engine;
        this.config = config;
        this.cors = new Cors(config.allowedOrigins());
        this.browsers = new BrowserRegistry(config.get(TransportConfig.MAX_SESSIONS_PER_BROWSER));
        this.limits = SessionLimits.of(engine.services(), config);
        this.adoptions = FirstSocketAdoptions.of(engine.services());
        this.binding = new CookieBinding(engine.services(), config.sessionBinding());
        int maxResponseBytes = config.get(TransportConfig.HTTP_MAX_RESPONSE);
        this.longPolling = CarrierCapabilities.of(LONG_POLLING).holdingConnects().piggybacking()
                .maxResponseBytes(maxResponseBytes);
        this.callbackPolling = CarrierCapabilities.of(CALLBACK_POLLING).holdingConnects()
                .maxResponseBytes(maxResponseBytes);
    }

    /** @return the transport names this HTTP transport serves, in advertising order */
    public List<String> transportNames() {
        return config.get(TransportConfig.CALLBACK_POLLING)
                ? List.of(LONG_POLLING, CROSS_ORIGIN_LONG_POLLING, CALLBACK_POLLING)
                : List.of(LONG_POLLING, CROSS_ORIGIN_LONG_POLLING);
    }

    CarrierCapabilities longPolling() {
        return longPolling;
    }

    CarrierCapabilities callbackPolling() {
        return callbackPolling;
    }

    /** @return the bindings of sessions to their browser and carrier, which the engine keeps */
    ClientBindings bindings() {
        return engine.services().bindings();
    }

    TransportEngine engine() {
        return engine;
    }

    TransportConfig config() {
        return config;
    }

    Cors cors() {
        return cors;
    }

    BrowserRegistry browsers() {
        return browsers;
    }

    FirstSocketAdoptions adoptions() {
        return adoptions;
    }

    /** @return how sessions are bound to their browser cookie */
    CookieBinding binding() {
        return binding;
    }

    /** @return the caps on sessions per browser and per address, and their counters */
    public SessionLimits limits() {
        return limits;
    }

    /** @return how many requests were refused with 403 for their {@code Origin} */
    public long refusedOrigins() {
        return cors.refusedOrigins();
    }

    /**
     * Handles one request; the response is sent through the exchange, now or later.
     *
     * @param exchange the request and its response
     */
    public void handle(HttpExchange exchange) {
        if (cors.refuse(exchange)) {
            return;
        }
        switch (exchange.method()) {
            case "OPTIONS":
                cors.answerPreflight(exchange);
                break;
            case "POST":
                exchange.readBody(engine.services().getConfig().maxMessageSizeBytes()).whenComplete((body, failure) -> {
                    if (failure != null) {
                        bodyFailed(exchange, failure instanceof CompletionException ? failure.getCause() : failure);
                    } else {
                        try {
                            handleBody(exchange, body);
                        } catch (RuntimeException unexpected) {
                            // Nothing else would answer: the stage swallows what its action throws.
                            QUIET.warn("body:" + unexpected.getClass().getName(), "Failed to handle a request",
                                    unexpected);
                            error(exchange, 500, "Internal error");
                        }
                    }
                });
                break;
            case "GET":
                handleCallbackPolling(exchange);
                break;
            default:
                badRequest(exchange, "Unknown Bayeux Transport: method " + exchange.method());
        }
    }

    private void handleBody(HttpExchange exchange, byte[] body) {
        int start = 0;
        while (start < body.length && Character.isWhitespace(body[start])) {
            start++;
        }
        if (start < body.length && (body[start] == '[' || body[start] == '{')) {
            try {
                process(exchange, engine.parse(body, start, body.length - start), null);
            } catch (BadBatchException bad) {
                badRequest(exchange, bad.getMessage());
            }
            return;
        }
        // Faye's cross-origin long-polling posts message=<url-encoded JSON> as text/plain.
        String form = new String(body, StandardCharsets.ISO_8859_1);
        String message = formField(form, "message");
        if (message == null) {
            badRequest(exchange, "Body is neither JSON nor message=<JSON>");
            return;
        }
        parseAndProcess(exchange, message, null);
    }

    private static String formField(String form, String name) {
        StringBuilder value = null;
        for (String pair : form.trim().split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).equals(name)) {
                try {
                    String decoded = URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                    value = value == null ? new StringBuilder(decoded) : value.append(decoded);
                } catch (IllegalArgumentException malformed) {
                    return null;
                }
            }
        }
        return value == null ? null : value.toString();
    }

    private void handleCallbackPolling(HttpExchange exchange) {
        String message = exchange.queryParameter("message");
        if (message == null || !config.get(TransportConfig.CALLBACK_POLLING)) {
            badRequest(exchange, "Unknown Bayeux Transport: GET without message");
            return;
        }
        String callback = exchange.queryParameter("jsonp");
        if (callback == null) {
            callback = DEFAULT_CALLBACK;
        }
        if (!CALLBACK_NAME.matcher(callback).matches()) {
            badRequest(exchange, "Invalid jsonp callback name");
            return;
        }
        parseAndProcess(exchange, message, callback);
    }

    private void parseAndProcess(HttpExchange exchange, String json, String callback) {
        try {
            process(exchange, engine.parse(json), callback);
        } catch (BadBatchException bad) {
            badRequest(exchange, bad.getMessage());
        }
    }

    private void process(HttpExchange exchange, IncomingBatch batch, String callback) {
        HttpCarrier carrier = new HttpCarrier(this, exchange, callback);
        SessionLimits.Admission admission = null;
        if (batch.isHandshake()) {
            admission = limits.admit(carrier.browserCookie(), exchange.remoteAddress());
            if (admission.isRefused()) {
                carrier.send(admission.refusal(engine, batch));
                return;
            }
            carrier.admitted(admission);
        }
        SessionLimits.Admission admitted = admission;
        exchange.onFailure(carrier::failed);
        engine.handle(batch, carrier).whenComplete((ignored, failure) -> {
            if (admitted != null) {
                admitted.releaseUnlessBound();
            }
            if (failure != null) {
                QUIET.warn("batch:" + failure.getClass().getName(), "Failed to handle a batch", failure);
                carrier.respondError(500, "Internal error");
            }
        });
    }

    private void bodyFailed(HttpExchange exchange, Throwable failure) {
        if (failure instanceof BodyTooLargeException) {
            error(exchange, 413, failure.getMessage());
        } else {
            LOG.debug("Could not read a request body", failure);
            error(exchange, 400, "Could not read the body");
        }
    }

    private void badRequest(HttpExchange exchange, String reason) {
        error(exchange, 400, reason);
    }

    private void error(HttpExchange exchange, int status, String reason) {
        cors.addResponseHeaders(exchange);
        exchange.addHeader("Cache-Control", "no-cache, no-store");
        exchange.respond(status, "text/plain;charset=UTF-8", reason.getBytes(StandardCharsets.UTF_8));
    }
}
