package org.bayeux.server.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The one rule for files that hold a secret (Oort's secret, the admin token, the Redis password, a key for digests),
 * shared by every module that reads one: a secret others may read is no secret, so the permissions its group or
 * other users have are what callers refuse (or, where an operator opted in, warn of); and the file is read whole,
 * with one trailing line break (LF or CRLF, as editors and {@code echo} add) cut. Errors name the key and the file,
 * never what the file holds.
 */
public final class SecretFileReader {
    /** The permissions that make a secret file unsafe: any access by its group or by other users. */
    private static final Set<PosixFilePermission> SHARED = Collections.unmodifiableSet(EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE));

    private SecretFileReader() {
    }

    /**
     * @param file a file holding a secret; a symbolic link is followed (a Kubernetes secret volume's files are links)
     * @return the permissions that let its group or other users read or write it; empty when there are none, when
     *         the file system has no POSIX modes, or when the file cannot be read (then {@link #read} says why)
     */
    public static Set<PosixFilePermission> sharedPermissions(Path file) {
        try {
            Set<PosixFilePermission> shared = EnumSet.noneOf(PosixFilePermission.class);
            shared.addAll(Files.getPosixFilePermissions(file));
            shared.retainAll(SHARED);
            return shared;
        } catch (UnsupportedOperationException | IOException | SecurityException unknown) {
            return Set.of();
        }
    }

    /**
     * Reads the file's bytes, one trailing LF or CRLF cut. The caller owns the array and should clear it once used.
     *
     * @param key the configuration key that named the file, for the error
     * @param file the file
     * @return its bytes, possibly empty
     * @throws InvalidConfigurationException naming the key and the file if it cannot be read
     */
    public static byte[] read(String key, Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException | RuntimeException unreadable) {
            throw new InvalidConfigurationException(key, file.toString(), "a readable file ("
                    + unreadable.getClass().getSimpleName() + ")");
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        if (length == bytes.length) {
            return bytes;
        }
        byte[] cut = Arrays.copyOf(bytes, length);
        Arrays.fill(bytes, (byte) 0);
        return cut;
    }
}
