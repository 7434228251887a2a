package org.bayeux.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The Bayeux errors whose counts {@link EngineStatistics} keeps from the start, and how any error string is reduced
 * to the key it is counted under: its code and its reason token ({@code 405::channel_invalid}), never its arguments.
 *
 * <p>The arguments of an error carry what a client sent (the channel name of {@code 405:/x y:channel_invalid}), so a
 * key made of the whole string would let one request create as many keys as it has messages, filling the bounded table
 * of keys and sending every later error to {@code other}. Only the code and the token are kept, and the token must be
 * known: one of the engine's below, or one registered with {@link EngineStatistics#registerError}. Any other token is
 * counted under {@code CODE::other}, and a string without a three-digit code under {@link EngineStatistics#OTHER_ERROR};
 * neither ever takes a key of its own beyond those.</p>
 */
final class KnownErrors {
    /** The reason of an error whose token is not known. */
    static final String OTHER_REASON = "other";
    /** A reason token: a lower-case word with underscores, as {@code session_unknown}. */
    static final Pattern TOKEN = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    private static final Pattern CODE = Pattern.compile("[1-5][0-9][0-9]");

    /**
     * The errors the engine answers, and those the project's transports and cluster modules answer through it (the
     * handshake limits of the HTTP transports, the Redis backplane's and Oort's), as {@code CODE::TOKEN}.
     */
    static final List<String> ENGINE = engineErrors();

    private KnownErrors() {
    }

    private static List<String> engineErrors() {
        List<String> errors = new ArrayList<>(List.of(
                "300::version_mismatch", "301::connection_types_mismatch", "301::connection_type_unsupported",
                "400::channel_missing", "402::session_unknown", "403::handshake_denied", "403::subscription_invalid",
                "403::subscribe_denied", "403::subscription_missing", "403::publish_denied", "404::message_deleted",
                "405::channel_invalid", "500::server_error", "500::service_failed",
                Draining.CODE + "::" + Draining.TOKEN,
                // The HTTP transports' handshake limits (SessionLimits), refused through the engine.
                "403::too_many_sessions", "403::too_many_handshakes",
                // A cluster that cannot take a publish: the Redis backplane, and any other (the standalone server's
                // readiness word for it).
                "503::backplane_unavailable", "503::cluster_unavailable",
                // Oort's replies to its peers.
                "409::oort_out_of_order", "410::oort_incarnation_left", "403::oort_forward_refused",
                // Oort's answer to a publish too large to forward.
                "413::oort_message_too_large"));
        for (Limit limit : Limit.values()) {
            errors.add(limit.error());
        }
        return Collections.unmodifiableList(errors);
    }

    /**
     * @param code the three-digit code
     * @param token the reason token
     * @return the key the error is counted under
     */
    static String key(int code, String token) {
        return code + "::" + token;
    }

    /**
     * @param error a whole error string, {@code CODE:ARGUMENTS:TOKEN}
     * @param known whether a token is known
     * @return its key: {@code CODE::TOKEN}, {@code CODE::other} for a token not known, or
     *         {@link EngineStatistics#OTHER_ERROR} without a code
     */
    static String keyOf(String error, java.util.function.Predicate<String> known) {
        int first = error.indexOf(':');
        if (first != 3 || !CODE.matcher(error.substring(0, 3)).matches()) {
            return EngineStatistics.OTHER_ERROR;
        }
        String token = error.substring(error.lastIndexOf(':') + 1);
        return error.substring(0, 3) + "::" + (known.test(token) ? token : OTHER_REASON);
    }
}
