package org.bayeux.transport.http;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.bayeux.server.config.ConfigOption;
import org.bayeux.server.config.ConfigOptions;
import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.TypedConfig;

/**
 * The transports' configuration: immutable, typed, validated when built, documented from {@link #OPTIONS} in
 * {@code docs/configuration.md} next to the engine's keys; declared the same way as the engine's (see
 * {@link TypedConfig}).
 */
public final class TransportConfig extends TypedConfig {
    /** Origins allowed to make cross-origin requests and WebSocket upgrades. */
    public static final ConfigOption<List<String>> ALLOWED_ORIGINS = ConfigOption.list("allowedOrigins", List.of(),
            "Origins (scheme://host[:port]) allowed cross-origin HTTP requests and WebSocket upgrades, with credentials "
                    + "(cookies); `*` allows any origin, without credentials. A request from another origin gets 403. "
                    + "Empty: same-origin only.");
    /** How many sessions of one browser may hold a long poll at once over HTTP/1.1. */
    public static final ConfigOption<Integer> MAX_SESSIONS_PER_BROWSER = ConfigOption.integer("maxSessionsPerBrowser", 1,
            n -> n >= -1, "an integer, -1 for no limit",
            "How many sessions sharing one BAYEUX_BROWSER cookie may hold a long poll at once over HTTP/1.1.");
    /** The interval advised to a browser's extra sessions. */
    public static final ConfigOption<Duration> MULTI_SESSION_INTERVAL = ConfigOption.duration("multiSessionInterval",
            Duration.ofSeconds(2), d -> !d.isNegative(), "a duration of 0 or more",
            "The polling interval advised (with multiple-clients:true) to sessions refused a long poll; 0 stops them.");
    /** The browser cookie's name. */
    public static final ConfigOption<String> BROWSER_COOKIE_NAME = ConfigOption.text("browserCookieName",
            "BAYEUX_BROWSER", name -> name.matches("[A-Za-z0-9_\\-]+"), "letters, digits, _ or -",
            "The cookie that tells sessions of the same browser apart.");
    /** Whether the browser cookie is marked for cross-site use. */
    public static final ConfigOption<Boolean> BROWSER_COOKIE_CROSS_SITE = ConfigOption.bool("browserCookieCrossSite",
            false, "Adds SameSite=None; Secure to the browser cookie, for pages served from another site (needs HTTPS).");
    /** How a session is bound to its client. */
    public static final ConfigOption<SessionBinding> SESSION_BINDING = ConfigOption.choice("sessionBinding",
            SessionBinding.class, SessionBinding.COOKIE_ONCE_SHOWN,
            "What a message naming a session's clientId must also show. COOKIE_ONCE_SHOWN: once the session's "
                    + "client has sent its BAYEUX_BROWSER cookie back (on a request or WebSocket upgrade), that cookie "
                    + "or the socket carrying the session; before, nothing (clients that keep no cookies keep their "
                    + "sessions). STRICT: from the handshake, the cookie (HTTP) or the socket or cookie (WebSocket); "
                    + "cookie-less clients lose their session on every new socket. NONE: the clientId alone. A "
                    + "foreign clientId gets 402::session_unknown. See docs/security.md.");
    /** The older switch for binding: false is {@link SessionBinding#NONE} whatever {@link #SESSION_BINDING} says. */
    public static final ConfigOption<Boolean> REQUIRE_BROWSER_COOKIE = ConfigOption.bool("requireBrowserCookie", true,
            "Kept for existing configurations: false turns session binding off (sessionBinding=NONE, whatever "
                    + "sessionBinding says); true leaves it to sessionBinding.");
    /** How many live sessions one browser cookie may have. */
    public static final ConfigOption<Integer> MAX_SESSIONS_PER_COOKIE = ConfigOption.integer("maxSessionsPerCookie", 100,
            n -> n >= -1, "an integer, -1 for no limit",
            "How many live sessions may share one BAYEUX_BROWSER cookie (tabs of one browser); a further handshake gets "
                    + "403::too_many_sessions. Handshakes without the cookie are capped by maxSessionsPerAddress.");
    /** How many live sessions one remote address may have. */
    public static final ConfigOption<Integer> MAX_SESSIONS_PER_ADDRESS = ConfigOption.integer("maxSessionsPerAddress",
            5000, n -> n >= -1, "an integer, -1 for no limit",
            "How many live sessions one remote IP address may have, over every transport; a further handshake gets "
                    + "403::too_many_sessions. The address is the TCP peer's, or the client's named by a proxy's "
                    + "forwarded headers when the server trusts them (--forwarded).");
    /** How many handshakes per second one remote address may make. */
    public static final ConfigOption<Integer> MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND = ConfigOption.integer(
            "maxHandshakesPerAddressPerSecond", 200, n -> n >= -1, "an integer, -1 for no limit",
            "How many handshakes one remote IP address may make per second (bursts up to as many); a further one gets "
                    + "403::too_many_handshakes with advice to handshake again 5 s later.");
    /** The status of a superseded long poll. */
    public static final ConfigOption<Integer> DUPLICATE_CONNECT_STATUS = ConfigOption.integer("duplicateConnectStatus",
            500, n -> n >= 400 && n <= 599 && n != 408, "an HTTP status from 400 to 599, never 408",
            "The HTTP status that ends a held long poll replaced by a newer connect of the same session.");
    /** The most queued-message bytes in one HTTP response. */
    public static final ConfigOption<Integer> HTTP_MAX_RESPONSE = ConfigOption.integer("httpMaxResponseBytes",
            1024 * 1024, n -> n >= 1024, "an integer of at least 1024",
            "The most JSON bytes of queued messages in one HTTP response (one message always goes, however large); "
                    + "the rest follow on the next connect, which is answered at once.");
    /** Whether JSONP is served. */
    public static final ConfigOption<Boolean> CALLBACK_POLLING = ConfigOption.bool("callbackPolling", true,
            "Whether the callback-polling (JSONP) transport is offered.");
    /** Whether WebSocket is served. */
    public static final ConfigOption<Boolean> WEBSOCKET = ConfigOption.bool("websocket", true,
            "Whether the WebSocket transport is offered.");
    /** WebSocket idle timeout. */
    public static final ConfigOption<Duration> WS_IDLE_TIMEOUT = ConfigOption.duration("wsIdleTimeout",
            Duration.ofMinutes(5), d -> d.compareTo(Duration.ofSeconds(1)) >= 0, "a duration of at least 1s",
            "How long a WebSocket may stay silent before it is closed; must exceed the engine's timeout.");
    /** How long a WebSocket may stay open without carrying a Bayeux session. */
    public static final ConfigOption<Duration> WS_HANDSHAKE_TIMEOUT = ConfigOption.duration("wsHandshakeTimeout",
            Duration.ofSeconds(10), d -> d.isZero() || d.compareTo(Duration.ofMillis(100)) >= 0,
            "0, or a duration of at least 100ms",
            "A WebSocket that has not completed a Bayeux handshake (or a connect of a session it may carry) this long "
                    + "after it opened is closed with 1008, whatever else it sends; 0 turns the check off.");
    /** The smallest WebSocket message worth compressing. */
    public static final ConfigOption<Integer> WS_DEFLATE_MIN_SIZE = ConfigOption.integer("wsDeflateMinSizeBytes", 256,
            n -> n >= 0, "an integer of 0 or more",
            "With permessage-deflate negotiated, messages smaller than this go uncompressed. Applied on Jetty's "
                    + "own WebSocket endpoint; a servlet container's Jakarta WebSocket compresses as it decides.");
    /** The largest outgoing WebSocket frame. */
    public static final ConfigOption<Integer> WS_MAX_FRAME = ConfigOption.integer("wsMaxOutgoingFrameBytes", 64 * 1024,
            n -> n >= 1024, "an integer of at least 1024",
            "Messages pushed on a WebSocket are grouped into frames up to this size.");
    /** How long a WebSocket may accept no bytes while it has some to write. */
    public static final ConfigOption<Duration> WS_WRITE_STALL_TIMEOUT = ConfigOption.duration("wsWriteStallTimeout",
            Duration.ofSeconds(30), d -> d.compareTo(Duration.ofSeconds(1)) >= 0, "a duration of at least 1s",
            "How long a WebSocket with bytes to write may accept none (its reader stopped reading) before it is "
                    + "dropped; its sessions then expire as for any dead connection.");

    /** Every option, in documentation order. */
    public static final List<ConfigOption<?>> OPTIONS = List.of(ALLOWED_ORIGINS, MAX_SESSIONS_PER_BROWSER,
            MULTI_SESSION_INTERVAL, BROWSER_COOKIE_NAME, BROWSER_COOKIE_CROSS_SITE, SESSION_BINDING,
            REQUIRE_BROWSER_COOKIE,
            MAX_SESSIONS_PER_COOKIE, MAX_SESSIONS_PER_ADDRESS, MAX_HANDSHAKES_PER_ADDRESS_PER_SECOND,
            DUPLICATE_CONNECT_STATUS, HTTP_MAX_RESPONSE, CALLBACK_POLLING, WEBSOCKET, WS_IDLE_TIMEOUT,
            WS_HANDSHAKE_TIMEOUT, WS_DEFLATE_MIN_SIZE, WS_MAX_FRAME, WS_WRITE_STALL_TIMEOUT);

    private TransportConfig(Map<ConfigOption<?>, Object> values) {
        super(OPTIONS, values);
    }

    /** @return the defaults */
    public static TransportConfig defaults() {
        return builder().build();
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param settings key to text value
     * @return the configuration
     * @throws InvalidConfigurationException for an unknown key or a bad value
     */
    public static TransportConfig fromMap(Map<String, String> settings) {
        return new TransportConfig(ConfigOptions.parse(OPTIONS, settings));
    }

    /** @return the options as a Markdown table */
    public static String markdownTable() {
        return ConfigOptions.markdownTable(OPTIONS);
    }

    /**
     * @return how sessions are bound: {@link #SESSION_BINDING}, or {@link SessionBinding#NONE} when
     *         {@link #REQUIRE_BROWSER_COOKIE} is false
     */
    public SessionBinding sessionBinding() {
        return get(REQUIRE_BROWSER_COOKIE) ? get(SESSION_BINDING) : SessionBinding.NONE;
    }

    /** @return {@link #ALLOWED_ORIGINS} */
    public List<String> allowedOrigins() {
        return get(ALLOWED_ORIGINS);
    }

    /**
     * Collects values; each is validated as it is set.
     */
    public static final class Builder extends TypedConfig.Builder<Builder> {
        private Builder() {
            super(OPTIONS);
        }

        /**
         * @param origins {@link #ALLOWED_ORIGINS}
         * @return this builder
         */
        public Builder allowedOrigins(String... origins) {
            return set(ALLOWED_ORIGINS, List.of(origins));
        }

        /** @return the configuration */
        public TransportConfig build() {
            return new TransportConfig(values());
        }
    }
}
