package org.bayeux.oort.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Arguments for {@link OortNodeMain} that process-level tests share: one secret, short heartbeats and timeouts. */
public final class ProcessNodes {
    /** The secret every node of a test cluster shares (at least 32 bytes). */
    public static final String SECRET = "process-level-test-secret-0123456789abcdef";
    /** Heartbeat interval of test nodes. */
    public static final long HEARTBEAT_MS = 500;
    /** Peer timeout of test nodes. */
    public static final long TIMEOUT_MS = 3000;

    private ProcessNodes() {
    }

    /**
     * Writes a secret to a file.
     *
     * @param dir where
     * @param name the file's name
     * @param secret its content
     * @return the file
     * @throws IOException if it cannot be written
     */
    public static Path secretFile(Path dir, String name, String secret) throws IOException {
        return Files.writeString(dir.resolve(name), secret, StandardCharsets.UTF_8);
    }

    /**
     * The arguments of a node with the shared secret, heartbeat {@value #HEARTBEAT_MS} ms, timeout
     * {@value #TIMEOUT_MS} ms and the default channels ({@code /**}).
     *
     * @param dir a directory for the secret file
     * @param seeds comma-separated seed URLs, maybe empty
     * @param more further "--name value" arguments
     * @return the arguments
     * @throws IOException if the secret file cannot be written
     */
    public static List<String> args(Path dir, String seeds, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("--secret-file", secretFile(dir, "secret", SECRET).toString(),
                "--heartbeat-ms", String.valueOf(HEARTBEAT_MS), "--timeout-ms", String.valueOf(TIMEOUT_MS)));
        if (!seeds.isEmpty()) {
            args.addAll(List.of("--seeds", seeds));
        }
        args.addAll(List.of(more));
        return args;
    }
}
