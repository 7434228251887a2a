package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --tls-keystore}/{@code --tls-cert}: HTTPS and WSS end to end with our Java client, and bad TLS options. */
class StandaloneTlsTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    static Path directory;
    private static TestCertificate rsa;
    private static TestCertificate ec;

    @BeforeAll
    static void makeCertificates() throws Exception {
        rsa = TestCertificate.create(directory, "RSA");
        ec = TestCertificate.create(directory, "EC");
    }

    private static String[] tlsArgs(String source, TestCertificate certificate) {
        return "keystore".equals(source)
                ? new String[] {"--tls-keystore", certificate.keyStore.toString(), "--tls-password-file",
                        certificate.passwordFile.toString()}
                : new String[] {"--tls-cert", certificate.certificatePem.toString(), "--tls-key",
                        certificate.keyPem.toString()};
    }

    private static StandaloneServer start(String... args) throws Exception {
        return new StandaloneServer(StandaloneOptions.parse(args).port(0).host("127.0.0.1"));
    }

    private static SslContextFactory.Client trusting(TestCertificate certificate) {
        SslContextFactory.Client trust = new SslContextFactory.Client();
        trust.setTrustStorePath(certificate.keyStore.toString());
        trust.setTrustStorePassword(TestCertificate.PASSWORD);
        trust.setTrustStoreType("PKCS12");
        return trust;
    }

    @ParameterizedTest(name = "{0} {1} over {2}")
    @CsvSource({"keystore, RSA, websocket", "keystore, RSA, long-polling", "pem, RSA, websocket",
            "pem, EC, long-polling"})
    void ourJavaClientTalksOverTls(String source, String algorithm, String transport) throws Exception {
        TestCertificate certificate = "RSA".equals(algorithm) ? rsa : ec;
        try (StandaloneServer server = start(tlsArgs(source, certificate));
             ClientResources resources = ClientResources.builder().sslContextFactory(trusting(certificate)).build();
             BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(server.getBaseUrl() + "/bayeux")
                     .transports(transport).build(), resources)) {
            assertThat(server.getBaseUrl()).isEqualTo("https://127.0.0.1:" + server.getPort());
            assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
            client.getChannel("/tls/a").subscribe((channel, message) -> received.add(message),
                    (channel, reply) -> subscribed.add(reply));
            Message reply = subscribed.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reply).isNotNull();
            assertThat(reply.isSuccessful()).isTrue();

            client.getChannel("/tls/a").publish(Map.of("secure", true), null);

            Message message = received.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(message).isNotNull();
            assertThat(message.getDataAsMap()).containsEntry("secure", true);
            assertThat(client.getTransportName()).isEqualTo(transport);
        }
    }

    @Test
    void theBrowserCookieIsSecureOverHttpsAndNoServerHeaderIsSent() throws Exception {
        HttpClient http = new HttpClient();
        http.setSslContextFactory(trusting(rsa));
        http.start();
        try (StandaloneServer server = start(tlsArgs("keystore", rsa))) {
            ContentResponse handshake = http.newRequest(server.getBaseUrl() + "/bayeux/handshake").method("POST")
                    .body(new StringRequestContent("application/json", "[{\"channel\":\"/meta/handshake\","
                            + "\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                    .timeout(10, TimeUnit.SECONDS).send();
            assertThat(handshake.getContentAsString()).contains("\"successful\":true");
            assertThat(handshake.getHeaders().get("Set-Cookie")).contains("BAYEUX_BROWSER=").containsIgnoringCase(
                    "Secure");
            assertThat(handshake.getHeaders().get("Server")).isNull();
            assertThat(handshake.getHeaders().get("X-Powered-By")).isNull();
        } finally {
            http.stop();
        }
    }

    @Test
    void aSocketThatNeverStartsTlsIsClosedOnTime() throws Exception {
        String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(tlsArgs("pem", rsa)),
                java.util.stream.Stream.of("--header-timeout", "500ms")).toArray(String[]::new);
        try (StandaloneServer server = start(args);
             RawConnection idle = new RawConnection(server.getPort())) {
            assertThat(idle.awaitClosedByServer(2_500)).isTrue();
            assertThat(server.getHeaderTimeouts()).isEqualTo(1);
        }
    }

    @Test
    void badTlsOptionsAreNamed(@TempDir Path files) throws Exception {
        Path wrongPassword = Files.writeString(files.resolve("wrong.txt"), "not-it\n");
        Path empty = Files.writeString(files.resolve("empty.txt"), "");
        Path notPem = Files.writeString(files.resolve("not.pem"), "hello");
        for (Path file : new Path[] {wrongPassword, empty, notPem}) {
            // The server's own rule for secret files (SecretFiles): the server user's alone.
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
        String store = rsa.keyStore.toString();
        assertThatThrownBy(() -> parse("--tls-keystore", "/no/such.p12", "--tls-password-file",
                rsa.passwordFile.toString())).hasMessageContaining("--tls-keystore /no/such.p12");
        assertThatThrownBy(() -> parse("--tls-keystore", store, "--tls-password-file", wrongPassword.toString()))
                .hasMessageContaining("--tls-keystore " + store).hasMessageContaining("wrong password");
        assertThatThrownBy(() -> parse("--tls-keystore", store, "--tls-password-file", empty.toString()))
                .hasMessageContaining("--tls-password-file " + empty);
        assertThatThrownBy(() -> parse("--tls-keystore", store)).hasMessageContaining("needs --tls-password-file");
        assertThatThrownBy(() -> parse("--tls-cert", rsa.certificatePem.toString()))
                .hasMessageContaining("needs --tls-key");
        assertThatThrownBy(() -> parse("--tls-cert", notPem.toString(), "--tls-key", rsa.keyPem.toString()))
                .hasMessageContaining("--tls-cert " + notPem);
        assertThatThrownBy(() -> parse("--tls-cert", rsa.certificatePem.toString(), "--tls-key", notPem.toString()))
                .hasMessageContaining("--tls-key " + notPem);
        assertThatThrownBy(() -> parse("--tls-cert", rsa.certificatePem.toString(), "--tls-key",
                ec.keyPem.toString())).hasMessageContaining("not the key of the first certificate");
        assertThatThrownBy(() -> parse("--tls-keystore", store, "--tls-password-file", rsa.passwordFile.toString(),
                "--tls-cert", rsa.certificatePem.toString(), "--tls-key", rsa.keyPem.toString()))
                .hasMessageContaining("one or the other");
    }

    private static StandaloneOptions parse(String... args) {
        return StandaloneOptions.parse(args);
    }
}
