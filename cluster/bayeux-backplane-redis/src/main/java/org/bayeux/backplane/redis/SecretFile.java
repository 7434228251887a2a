package org.bayeux.backplane.redis;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Set;

import org.bayeux.server.config.InvalidConfigurationException;
import org.bayeux.server.config.SecretFileReader;

/**
 * Reads a file that holds a secret of the backplane (the Redis password, the session key) as text, by the rule every
 * module shares ({@link SecretFileReader}): at start, one trailing line break cut, and always refused when users other
 * than its owner may read or write it. Errors name the key and the file, never what it holds.
 */
final class SecretFile {
    private SecretFile() {
    }

    /**
     * @param key the configuration key that names the file, for errors
     * @param file the file's path
     * @return its text (UTF-8), without one trailing LF or CRLF, not empty
     * @throws InvalidConfigurationException naming the key and the file if it is unreadable, readable by group or
     *         others, empty, or not UTF-8
     */
    static char[] read(String key, String file) {
        Path path = Path.of(file);
        Set<PosixFilePermission> shared = SecretFileReader.sharedPermissions(path);
        if (!shared.isEmpty()) {
            throw new InvalidConfigurationException(key, file, "a file only its owner may read (it allows "
                    + shared + "; chmod 600 " + file + ")");
        }
        byte[] bytes = SecretFileReader.read(key, path);
        try {
            if (bytes.length == 0) {
                throw new InvalidConfigurationException(key, file, "a file holding the password (it is empty)");
            }
            CharBuffer text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            char[] secret = new char[text.remaining()];
            text.get(secret);
            Arrays.fill(text.array(), '\0');
            return secret;
        } catch (CharacterCodingException notText) {
            throw new InvalidConfigurationException(key, file, "a UTF-8 text file");
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }
}
