package org.bayeux.oort;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The MAC on every forward of one link, so that a forward is only taken from whoever holds that link's key: a reader
 * of the link who copies its cookie, clientId and the peer's id, but has not the cluster's secret, cannot make one.
 *
 * <p>The key is made for each join, on both sides, as an HMAC-SHA256 under the cluster's secret of the joining node's
 * nonce (sent in its {@link JoinProof}), the accepting node's nonce (sent back in the handshake's reply), the joining
 * incarnation's id and the accepting node's URL: a new join, by either side's choice of nonce, is a new key. Each
 * forward then carries an HMAC-SHA256 under that key of its origin, the incarnation of the receiver its chain is
 * for, sequence number, previous number, channel and
 * message, each field length-prefixed so that no two forwards sign the same bytes. The receiver checks it in constant
 * time before anything else.</p>
 */
final class ForwardAuth {
    static final String ALGORITHM = "HmacSHA256";
    /** The field of a forward that carries its MAC. */
    static final String FIELD = "mac";

    private final Mac prototype;

    /** @param key this link's key, from {@link #linkKey} */
    ForwardAuth(byte[] key) {
        this.prototype = mac(key);
    }

    /**
     * @param secret the cluster's secret
     * @param joinerNonce the nonce of the joining node's proof
     * @param acceptorNonce the nonce the accepting node answered with
     * @param joinerId the joining incarnation's id
     * @param acceptorUrl the accepting node's URL (the proof's target)
     * @return the link's key
     */
    static byte[] linkKey(byte[] secret, String joinerNonce, String acceptorNonce, String joinerId,
            String acceptorUrl) {
        Mac hmac = mac(secret);
        hmac.update(framed("oort-forward-key"));
        hmac.update(framed(joinerNonce));
        hmac.update(framed(acceptorNonce));
        hmac.update(framed(joinerId));
        hmac.update(framed(acceptorUrl));
        return hmac.doFinal();
    }

    /** @return the MAC of one forward, Base64 */
    String sign(String origin, String to, long seq, long prev, String channel, String message) {
        return Base64.getEncoder().encodeToString(compute(origin, to, seq, prev, channel, message));
    }

    /** @return whether {@code given} is the MAC of the forward (compared in constant time) */
    boolean verify(String origin, String to, long seq, long prev, String channel, String message, Object given) {
        if (!(given instanceof String text)) {
            return false;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException bad) {
            return false;
        }
        return MessageDigest.isEqual(decoded, compute(origin, to, seq, prev, channel, message));
    }

    private byte[] compute(String origin, String to, long seq, long prev, String channel, String message) {
        Mac hmac;
        try {
            hmac = (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("HmacSHA256 cannot be cloned", e);
        }
        hmac.update(framed(origin));
        hmac.update(framed(to));
        hmac.update(ByteBuffer.allocate(16).putLong(seq).putLong(prev).array());
        hmac.update(framed(channel));
        hmac.update(framed(message));
        return hmac.doFinal();
    }

    /** @return the text's UTF-8 bytes after their length */
    private static byte[] framed(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).array();
    }

    private static Mac mac(byte[] key) {
        try {
            Mac hmac = Mac.getInstance(ALGORITHM);
            hmac.init(new SecretKeySpec(key, ALGORITHM));
            return hmac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
