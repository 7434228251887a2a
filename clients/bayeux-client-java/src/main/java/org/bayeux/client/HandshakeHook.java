package org.bayeux.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Runs before every handshake, the first and each re-handshake, so that credentials that expire (a token, a signed
 * ticket) are fetched afresh before the client asks the server for a new session.
 *
 * <p>The hook may finish later: the handshake is sent when the returned stage completes. If the stage fails, or the
 * hook throws, that attempt counts as a failed handshake: it is logged and retried after the back-off.</p>
 *
 * <pre>{@code
 * config.handshakeHook(request -> tokens.fetch().thenAccept(token -> {
 *     request.header("Authorization", "Bearer " + token);
 *     request.ext("auth", Map.of("token", token));
 * }));
 * }</pre>
 */
@FunctionalInterface
public interface HandshakeHook {
    /**
     * @param request the handshake about to be sent; may be changed until the returned stage completes
     * @return a stage that completes when the handshake may be sent
     */
    CompletionStage<?> beforeHandshake(HandshakeRequest request);

    /** @return a hook that does nothing */
    static HandshakeHook none() {
        return request -> CompletableFuture.completedFuture(null);
    }
}
