package org.bayeux.oort;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proof a node gives in its handshake's {@code ext.oort} that it knows the secret, made fresh for each handshake:
 * an HMAC-SHA256 over its node id, its URL, the URL it dials, the time and a random nonce. The receiving node
 * {@link #verify checks} the MAC in constant time, the target URL (a proof made for another node is no good here),
 * the time (within a window either side of its clock) and that it never saw the nonce within that window: a captured
 * handshake cannot be replayed.
 */
final class JoinProof {
    static final String EXT = "oort";
    /** The most nonces remembered; past it, joins are refused until the oldest age out (a flood, not a cluster). */
    static final int MAX_REMEMBERED_NONCES = 100_000;

    private final byte[] secret;
    private final Clock clock;
    private final Duration window;
    private final SecureRandom random = new SecureRandom();
    /** Nonce to the time it expires, oldest first. */
    private final LinkedHashMap<String, Long> seenNonces = new LinkedHashMap<>();

    /**
     * A peer whose proof was good.
     *
     * @param id its incarnation
     * @param url its URL
     * @param acceptNonce the nonce this node answers its join with (see {@link ForwardAuth})
     * @param forwards checks the MACs of the forwards on the session this join opens
     */
    record Peer(String id, String url, String acceptNonce, ForwardAuth forwards) {
    }

    JoinProof(byte[] secret, Clock clock, Duration window) {
        this.secret = secret.clone();
        this.clock = clock;
        this.window = window;
    }

    /**
     * @param id this node's id
     * @param url this node's URL
     * @param target the URL dialled
     * @return the {@code ext.oort} object of a handshake
     */
    Map<String, Object> make(String id, String url, String target) {
        String nonce = newNonce();
        long time = clock.millis();
        Map<String, Object> ext = new HashMap<>();
        ext.put("id", id);
        ext.put("url", url);
        ext.put("target", target);
        ext.put("time", time);
        ext.put("nonce", nonce);
        ext.put("mac", Base64.getEncoder().encodeToString(mac(id, url, target, time, nonce)));
        return ext;
    }

    /**
     * @param ext the {@code ext.oort} value of a handshake
     * @param self this node's URL, which the proof must name as its target
     * @return the peer, or null if the proof is not good (the reason is not told to the sender)
     */
    Peer verify(Object ext, String self) {
        if (!(ext instanceof Map<?, ?> fields)) {
            return null;
        }
        if (!(fields.get("id") instanceof String id) || !(fields.get("url") instanceof String url)
                || !(fields.get("target") instanceof String target) || !(fields.get("time") instanceof Number time)
                || !(fields.get("nonce") instanceof String nonce) || !(fields.get("mac") instanceof String mac)) {
            return null;
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(mac);
        } catch (IllegalArgumentException e) {
            return null;
        }
        long sent = time.longValue();
        if (!MessageDigest.isEqual(given, mac(id, url, target, sent, nonce))) {
            return null;
        }
        if (!target.equals(self)) {
            return null;
        }
        long now = clock.millis();
        if (Math.abs(now - sent) > window.toMillis()) {
            return null;
        }
        synchronized (seenNonces) {
            forgetExpired(now);
            if (seenNonces.size() >= MAX_REMEMBERED_NONCES || seenNonces.containsKey(nonce)) {
                return null;
            }
            // Kept until a proof with it would be too old anyway.
            seenNonces.put(nonce, sent + window.toMillis());
        }
        String acceptNonce = newNonce();
        return new Peer(id, url, acceptNonce, forwardAuth(nonce, acceptNonce, id, target));
    }

    /**
     * @param joinerNonce the nonce of the joining node's proof
     * @param acceptorNonce the nonce the accepting node answered with
     * @param joinerId the joining incarnation
     * @param acceptorUrl the accepting node's URL
     * @return the MACs of the forwards of the link this join opens
     */
    ForwardAuth forwardAuth(String joinerNonce, String acceptorNonce, String joinerId, String acceptorUrl) {
        return new ForwardAuth(ForwardAuth.linkKey(secret, joinerNonce, acceptorNonce, joinerId, acceptorUrl));
    }

    private String newNonce() {
        byte[] nonceBytes = new byte[16];
        random.nextBytes(nonceBytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(nonceBytes);
    }

    private void forgetExpired(long now) {
        // Expiry times are not strictly in insertion order (senders' clocks differ by up to the window), so the walk
        // stops at the first live one and a few expired nonces may linger one window longer: bounded all the same.
        Iterator<Long> expiries = seenNonces.values().iterator();
        while (expiries.hasNext()) {
            if (expiries.next() >= now) {
                return;
            }
            expiries.remove();
        }
    }

    private byte[] mac(String id, String url, String target, long time, String nonce) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
            String signed = String.join("\n", id, url, target, Long.toString(time), nonce);
            return hmac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
