package org.bayeux.backplane.redis;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import org.bayeux.server.config.InvalidConfigurationException;

/**
 * Reads a file that holds a secret (the Redis password), the way the standalone server reads {@code oort.secretFile}:
 * at start, one trailing line break cut, and refused when the file system says that users other than its owner may
 * read or write it (a secret others can read is no secret). Errors name the key and the file, never what it holds.
 */
final class SecretFile {
    /** The permissions that make a secret file unsafe: any access by the group or by others. */
    static final Set<PosixFilePermission> UNSAFE = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

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
        byte[] bytes;
        try {
            PosixFileAttributeView posix = Files.getFileAttributeView(path, PosixFileAttributeView.class);
            if (posix != null) {
                Set<PosixFilePermission> permissions = posix.readAttributes().permissions();
                permissions.retainAll(UNSAFE);
                if (!permissions.isEmpty()) {
                    throw new InvalidConfigurationException(key, file, "a file only its owner may read (it allows "
                            + permissions + "; chmod 600 " + file + ")");
                }
            }
            bytes = Files.readAllBytes(path);
        } catch (IOException | SecurityException unreadable) {
            throw new InvalidConfigurationException(key, file, "a readable file ("
                    + unreadable.getClass().getSimpleName() + ")");
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        try {
            if (length == 0) {
                throw new InvalidConfigurationException(key, file, "a file holding the password (it is empty)");
            }
            CharBuffer text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, length));
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
