package org.bayeux.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.standalone.StandaloneOptions;
import org.bayeux.standalone.StandaloneServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CometD JavaScript client in Node.js against the standalone server with {@code --tls-keystore}: https and wss
 * with a certificate made for the run, which Node trusts through {@code NODE_EXTRA_CA_CERTS} (certificate checks
 * stay on).
 */
class NodeTlsTest {
    private static final String PASSWORD = "test-only-password";
    private static final Duration RUN_LIMIT = Duration.ofSeconds(60);

    @TempDir
    static Path directory;
    private static Path keyStore;
    private static Path passwordFile;
    private static Path certificatePem;

    @BeforeAll
    static void makeACertificate() throws Exception {
        keyStore = directory.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "30", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
            assertThat(process.exitValue()).as(new String(process.getInputStream().readAllBytes())).isZero();
        } finally {
            process.destroyForcibly();
        }
        passwordFile = Files.writeString(directory.resolve("password.txt"), PASSWORD + "\n");
        // A secret file the server user's alone, as the standalone server requires.
        java.nio.file.Files.setPosixFilePermissions(passwordFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        KeyStore store = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(store.getCertificate("server").getEncoded());
        certificatePem = Files.writeString(directory.resolve("server.pem"),
                "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void cometdJsPublishesAndReceivesOverTls(String transport) throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse("--tls-keystore",
                keyStore.toString(), "--tls-password-file", passwordFile.toString(), "--set", "timeout=5s")
                .port(0).host("127.0.0.1"))) {
            String url = server.getBaseUrl() + "/bayeux";
            assertThat(url).startsWith("https://127.0.0.1:");

            Map<String, Object> result = NodeScenario.start("cometd-js", url, transport, "publish", Map.of(),
                    Map.of("NODE_EXTRA_CA_CERTS", certificatePem.toString())).result(RUN_LIMIT);

            assertThat(result.get("received")).isEqualTo(
                    List.of(Map.of("channel", "/chat/room", "data", result.get("sent"))));
            assertThat(result.get("connectionTypes")).isEqualTo(List.of(transport));
        }
    }
}
