package org.bayeux.client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.Clients.Received;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.subscribe;

/**
 * https and wss, with a certificate the client trusts through its {@link ClientResources}, and one it does not.
 * The certificate is made for the run by the JDK's keytool, so that it is never out of date.
 */
class TlsTest {
    private static final String PASSWORD = "test-only";

    @TempDir
    static Path directory;
    private static Path keyStore;

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
        assertThat(Files.size(keyStore)).isPositive();
    }

    private static TestServer httpsServer() throws Exception {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStorePath(keyStore.toString());
        tls.setKeyStorePassword(PASSWORD);
        tls.setKeyStoreType("PKCS12");
        return new TestServer(engine -> { }, transports -> { }, engine -> { }, tls);
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void talksOverTlsToAServerItTrusts(String transport) throws Exception {
        SslContextFactory.Client trust = new SslContextFactory.Client();
        trust.setTrustStorePath(keyStore.toString());
        trust.setTrustStorePassword(PASSWORD);
        trust.setTrustStoreType("PKCS12");
        try (TestServer server = httpsServer();
             ClientResources resources = ClientResources.builder().sslContextFactory(trust).build();
             BayeuxClient client = new BayeuxClient(config(server.url(), transport).build(), resources)) {
            assertThat(server.url()).startsWith("https://");
            assertThat(client.handshake(Clients.WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            Received received = subscribe(client, "/tls/a");

            client.getChannel("/tls/a").publish(Map.of("secure", true), null);

            assertThat(received.next().getDataAsMap()).containsEntry("secure", true);
            assertThat(client.getTransportName()).isEqualTo(transport);
        }
    }

    @Test
    void refusesAServerWhoseCertificateItDoesNotTrust() throws Exception {
        try (TestServer server = httpsServer();
             BayeuxClient client = new BayeuxClient(config(server.url(), "long-polling").build())) {
            Message reply = Clients.await(client.handshakeAsync(null));

            assertThat(reply.isSuccessful()).isFalse();
            assertThat(reply.getError()).isEqualTo(ClientErrors.TRANSPORT_FAILURE);
            assertThat(client.getState()).as("still trying").isEqualTo(BayeuxClient.State.HANDSHAKING);
            assertThat(server.remoteSessions()).isEmpty();
        }
    }
}
