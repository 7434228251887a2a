package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.LocalSession;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.ClientResources;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, item 1: links over TLS, mutual TLS included. Two nodes serve https only and require a client certificate;
 * each node's links present one ({@link Oort.Builder#linkTls}) and trust the other's. The certificate is made for the
 * run by the JDK's keytool.
 */
class OortTlsTest {
    private static final String PASSWORD = "test-only";
    private static final Duration WAIT = Duration.ofSeconds(20);
    @TempDir
    static Path directory;
    private static Path keyStore;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void makeACertificate() throws Exception {
        keyStore = directory.resolve("node.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "node", "-keyalg", "RSA",
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

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    /** One node on https that requires a client certificate its trust store holds. */
    private final class TlsNode implements AutoCloseable {
        final Server jetty = new Server();
        final BayeuxEngine engine = BayeuxEngine.create();
        final String url;
        final List<String> joined = new CopyOnWriteArrayList<>();
        Oort oort;

        TlsNode() throws Exception {
            SslContextFactory.Server tls = new SslContextFactory.Server();
            tls.setKeyStorePath(keyStore.toString());
            tls.setKeyStorePassword(PASSWORD);
            tls.setKeyStoreType("PKCS12");
            tls.setTrustStorePath(keyStore.toString());
            tls.setTrustStorePassword(PASSWORD);
            tls.setTrustStoreType("PKCS12");
            tls.setNeedClientAuth(true);
            ServerConnector connector = new ServerConnector(jetty, tls);
            connector.setHost("127.0.0.1");
            jetty.addConnector(connector);
            connector.open();
            url = "https://127.0.0.1:" + connector.getLocalPort() + "/bayeux";
            BayeuxEndpoint.mount(jetty, "/bayeux", engine, TransportConfig.defaults());
            engine.addClusterListener(new org.bayeux.server.cluster.ClusterListener() {
                @Override
                public void joined(org.bayeux.server.cluster.ClusterMember member) {
                    joined.add(member.id());
                }
            });
            closeables.add(this);
        }

        TlsNode start(List<String> seeds) throws Exception {
            oort = Oort.builder(engine).url(url).seeds(seeds).secret(OortTestNode.SECRET).linkTls(linkTls(true))
                    .build();
            jetty.start();
            return this;
        }

        @Override
        public void close() throws Exception {
            jetty.stop();
        }
    }

    private static SslContextFactory.Client linkTls(boolean withCertificate) {
        SslContextFactory.Client tls = new SslContextFactory.Client();
        tls.setTrustStorePath(keyStore.toString());
        tls.setTrustStorePassword(PASSWORD);
        tls.setTrustStoreType("PKCS12");
        if (withCertificate) {
            tls.setKeyStorePath(keyStore.toString());
            tls.setKeyStorePassword(PASSWORD);
            tls.setKeyStoreType("PKCS12");
        }
        return tls;
    }

    @Test
    void nodesJoinAndForwardOverMutualTls() throws Exception {
        TlsNode b = new TlsNode().start(List.of());
        TlsNode a = new TlsNode().start(List.of(b.url));
        await().atMost(WAIT).until(() -> a.joined.size() == 1 && b.joined.size() == 1);
        assertThat(a.oort.links()).extracting(LinkSnapshot::url).containsExactly(b.url);

        List<Object> onB = new CopyOnWriteArrayList<>();
        LocalSession subscriber = b.engine.newLocalSession("subscriber");
        subscriber.handshake();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        subscriber.getChannel("/chat/room").subscribe((c, m) -> onB.add(m.getData()), (c, m) -> subscribed.complete(m));
        assertThat(subscribed.get(5, TimeUnit.SECONDS).isSuccessful()).isTrue();
        LocalSession speaker = a.engine.newLocalSession("speaker");
        speaker.handshake();
        speaker.getChannel("/chat/room").publish("over TLS", null);
        await().atMost(WAIT).until(() -> onB.contains("over TLS"));
    }

    @Test
    void aClientWithoutACertificateIsRefusedByTheNode() throws Exception {
        TlsNode b = new TlsNode().start(List.of());
        try (ClientResources resources = ClientResources.builder().sslContextFactory(linkTls(false)).build();
             BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(b.url).build(), resources)) {
            Message reply = client.handshakeAsync(null).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply.isSuccessful()).isFalse();
        }
        assertThat(b.engine.getSessions()).isEmpty();
    }
}
