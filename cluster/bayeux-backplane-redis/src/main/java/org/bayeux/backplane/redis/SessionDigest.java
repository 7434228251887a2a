package org.bayeux.backplane.redis;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.bayeux.server.config.InvalidConfigurationException;

/**
 * What stands for a session's id (its clientId) in the Redis keys of {@link RedisSessionStore}: the first 16 bytes,
 * base64url, of an HMAC-SHA256 of the id keyed with {@link RedisBackplaneConfig#SESSION_KEY_FILE}, or of a plain
 * SHA-256 of it without a key. The same id gives the same digest on every node that has the same key; the digest
 * does not give the id back.
 */
final class SessionDigest {
    /** The shortest key taken, as for Oort's secret. */
    static final int MIN_KEY_BYTES = 32;
    private static final int DIGEST_BYTES = 16;

    private final byte[] key;
    /** Mac and MessageDigest are not thread-safe: one per thread (the writer thread, and callers of find). */
    private final ThreadLocal<Mac> macs;
    private final ThreadLocal<MessageDigest> hashes = ThreadLocal.withInitial(SessionDigest::sha256);

    private SessionDigest(byte[] key) {
        this.key = key;
        this.macs = key == null ? null : ThreadLocal.withInitial(this::mac);
    }

    /**
     * @param config {@link RedisBackplaneConfig#SESSION_KEY_FILE}, read now
     * @return the digest of the configured key, or the unkeyed one
     * @throws InvalidConfigurationException naming the key and the file if it is unsafe, unreadable or too short
     */
    static SessionDigest from(RedisBackplaneConfig config) {
        if (config.sessionKeyFile().isEmpty()) {
            return new SessionDigest(null);
        }
        char[] text = SecretFile.read(RedisBackplaneConfig.SESSION_KEY_FILE.key(), config.sessionKeyFile());
        ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(text));
        Arrays.fill(text, '\0');
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        Arrays.fill(encoded.array(), (byte) 0);
        int length = bytes.length;
        if (length < MIN_KEY_BYTES) {
            throw new InvalidConfigurationException(RedisBackplaneConfig.SESSION_KEY_FILE.key(),
                    config.sessionKeyFile(), "a file of at least " + MIN_KEY_BYTES + " bytes (it holds " + length
                            + ")");
        }
        return new SessionDigest(bytes);
    }

    /**
     * @param sessionId a session's id
     * @return what stands for it in Redis
     */
    String of(String sessionId) {
        byte[] id = sessionId.getBytes(StandardCharsets.UTF_8);
        byte[] full = macs != null ? macs.get().doFinal(id) : hashes.get().digest(id);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(full, DIGEST_BYTES));
    }

    private Mac mac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException missing) {
            throw new IllegalStateException("HmacSHA256 is not available", missing);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException missing) {
            throw new IllegalStateException("SHA-256 is not available", missing);
        }
    }
}
