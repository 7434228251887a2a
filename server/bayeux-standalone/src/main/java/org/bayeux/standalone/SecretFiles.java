package org.bayeux.standalone;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import org.bayeux.server.config.SecretFileReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rule for files that hold a secret (the admin token's, Oort's secret, the TLS key store's password, a PEM
 * private key, a {@code --config} file that sets {@code admin.token}): on a POSIX file system, a file that its group
 * or other users may read or write refuses the start, naming the file, its mode and the fix; with
 * {@code --allow-readable-secret-files} it is only a WARN line. The mode is that of the file a symbolic link leads to
 * (a Kubernetes secret volume's files are links). File systems without POSIX modes are not checked.
 */
final class SecretFiles {
    private static final Logger LOG = LoggerFactory.getLogger(SecretFiles.class);
    /** The command-line flag that turns the refusal into a warning. */
    static final String ALLOW_FLAG = "--allow-readable-secret-files";

    private final boolean allowShared;

    /** @param allowShared whether a file others may read is only warned of, not refused */
    SecretFiles(boolean allowShared) {
        this.allowShared = allowShared;
    }

    /**
     * @param file a file holding a secret
     * @param origin what named it, for the message: {@code admin.tokenFile}, {@code --tls-password-file}
     * @throws IllegalArgumentException if its group or other users may read or write it, unless allowed
     */
    void checkPrivate(Path file, String origin) {
        checkPrivate(file, origin, "a secret");
    }

    /**
     * @param file a file holding a secret
     * @param origin what named it, for the message: {@code --config}
     * @param holds what secret it holds, for the message: {@code admin.token}
     * @throws IllegalArgumentException if its group or other users may read or write it, unless allowed
     */
    void checkPrivate(Path file, String origin, String holds) {
        Set<PosixFilePermission> shared = SecretFileReader.sharedPermissions(file);
        if (shared.isEmpty()) {
            return;
        }
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (IOException | RuntimeException unreadable) {
            permissions = shared;
        }
        String mode = PosixFilePermissions.toString(permissions);
        String problem = origin + " " + file + ": holds " + holds + " but its group or other users may read or write "
                + "it (" + mode + ")";
        if (allowShared) {
            LOG.warn("{}; accepted because of {}", problem, ALLOW_FLAG);
            return;
        }
        throw new IllegalArgumentException(problem + "; make it the server user's alone (chmod 600 " + file
                + "), or start with " + ALLOW_FLAG + " to accept it with a warning");
    }

    /**
     * Reads a secret kept on one line; one trailing line break (LF or CRLF), as editors and {@code echo} add, is
     * cut, as is white space around it.
     *
     * @param file the file
     * @param key the key that named it, for the messages
     * @return the secret, possibly empty
     * @throws IllegalArgumentException if the file cannot be read, holds more than one line, or is not private
     */
    String readLine(Path file, String key) {
        checkPrivate(file, key);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException unreadable) {
            throw new IllegalArgumentException("Invalid configuration: " + key + "=" + file + " (expected a readable "
                    + "file, UTF-8: " + unreadable.getClass().getSimpleName() + ")", unreadable);
        }
        String secret = text.strip();
        if (secret.indexOf('\n') >= 0 || secret.indexOf('\r') >= 0) {
            // Never the text itself: it is the secret.
            throw new IllegalArgumentException("Invalid configuration: " + key + "=" + file + " holds more than one "
                    + "line (expected the secret alone, on one line)");
        }
        return secret;
    }
}
