package org.bayeux.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTP headers of a client's requests and WebSocket upgrades: set from the configuration, changed by the
 * handshake hook, read by the transports for each request.
 */
final class RequestHeaders {
    private final Map<String, String> headers;

    /**
     * @param initial the configured headers
     */
    RequestHeaders(Map<String, String> initial) {
        this.headers = new ConcurrentHashMap<>(initial);
    }

    /** @return the headers of a request made now */
    Map<String, String> snapshot() {
        return Map.copyOf(headers);
    }

    /** Sets or removes (null value) a header of every later request and upgrade. */
    void set(String name, String value) {
        if (value == null) {
            headers.remove(name);
        } else {
            headers.put(name, value);
        }
    }
}
