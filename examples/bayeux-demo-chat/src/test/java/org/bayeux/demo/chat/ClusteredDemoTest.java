package org.bayeux.demo.chat;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clustered demo ({@code bin/bayeux demo --nodes 2} starts two nodes with these options): two standalone servers
 * with the demo chat and the Oort flags, a chat client on each; they hear each other, see one member list, and reach
 * each other privately.
 */
class ClusteredDemoTest {
    @TempDir
    Path dir;

    private StandaloneServer node(Path secret, String seed) throws Exception {
        List<String> args = new ArrayList<>(List.of("--oort-url", "http://127.0.0.1:0/bayeux",
                "--oort-secret-file", secret.toString(), "--oort-channels", "/chat/room/*,/chat-cluster/*",
                "--set", "oort.heartbeatInterval=500ms", "--set", "oort.peerTimeout=5s"));
        if (seed != null) {
            args.addAll(List.of("--oort-seeds", seed));
        }
        return DemoNodes.start(args.toArray(String[]::new));
    }

    @Test
    void twoClientsOnTwoNodesChatAndSeeOneMemberList() throws Exception {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "0123456789abcdef0123456789abcdef0123456789abcdef");
        // A secret file the server user's alone, as the standalone server requires.
        java.nio.file.Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        try (StandaloneServer a = node(secret, null); StandaloneServer b = node(secret, a.getOort().config().url())) {
            await("both nodes joined").atMost(DemoChatter.WAIT)
                    .until(() -> a.getOort().members().size() == 1 && b.getOort().members().size() == 1);
            DemoChatter.converse(a, b).close();
        }
    }
}
