package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.server.cluster.Cluster;
import org.bayeux.server.cluster.ClusterMessage;
import org.bayeux.server.cluster.ClusterNode;
import org.bayeux.standalone.admin.AdminConsole;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin page's access rules and its snapshots, with our Java client over WebSocket against a real server: off
 * without a token; a short token refuses the start without showing it; a wrong token, an ordinary session and any
 * publish are refused with their errors; an admin session gets snapshots whose numbers are the traffic's.
 */
class StandaloneAdminTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOKEN = "0123456789abcdef0123456789abcdef-admin";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(BayeuxClient::close);
    }

    @Test
    void noTokenNoPage(@TempDir Path site) throws Exception {
        Files.writeString(site.resolve("index.html"), "<title>a site</title>");
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse("--static", site.toString())
                .port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            assertThat(get(base + "/admin").statusCode()).isEqualTo(404);
            assertThat(get(base + "/admin/").statusCode()).isEqualTo(404);
            assertThat(get(base + "/admin/admin.js").statusCode()).isEqualTo(404);
            assertThat(get(base + "/").statusCode()).as("the static files are still served").isEqualTo(200);
        }
    }

    @Test
    void aShortTokenRefusesTheStartWithoutShowingIt() {
        assertThatThrownBy(() -> StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN", "tooShortToBeSafe")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("admin.token")
                .hasMessageContaining("at least 32 characters")
                .hasMessageNotContaining("tooShortToBeSafe");
        assertThat(OperationsConfig.fromMap(Map.of("admin.token", TOKEN)).toString())
                .contains("admin.token=(hidden)").doesNotContain(TOKEN);
    }

    @Test
    void onlyAdminSessionsGetSnapshotsWithTheTrafficsNumbers() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN",
                TOKEN)).port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            HttpResponse<String> page = get(base + "/admin/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("Admin token").doesNotContain(TOKEN);
            assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(page.headers().firstValue("Content-Security-Policy")).get().asString()
                    .contains("default-src 'self'");
            assertThat(get(base + "/admin/bayeux-js-client/index.js").statusCode()).isEqualTo(200);
            assertThat(get(base + "/admin/missing.js").statusCode()).isEqualTo(404);
            assertThat(get(base + "/admin").statusCode()).as("a redirect to /admin/").isBetween(301, 308);
            BlockingQueue<Object> adminExtSeen = new LinkedBlockingQueue<>();
            server.getEngine().addSessionListener(new SessionListener() {
                @Override
                public void sessionAdded(ServerSession session, ServerMessage handshake) {
                    Map<String, Object> ext = handshake.getExt();
                    adminExtSeen.add(ext == null || !ext.containsKey("admin") ? "none" : ext.get("admin"));
                }
            });

            // A wrong token: the handshake is refused.
            BayeuxClient wrong = client(base);
            Message refused = wrong.handshakeAsync(adminExt("x".repeat(TOKEN.length())))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(refused.isSuccessful()).isFalse();
            assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("403::handshake_denied");

            // An ordinary session: may not subscribe (its error says why) nor publish; a wildcard gets nothing.
            BayeuxClient user = client(base);
            assertThat(user.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            Message denied = user.getChannel(AdminConsole.CHANNEL).subscribeAsync((c, m) -> { })
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(denied.isSuccessful()).isFalse();
            assertThat(denied.get(Message.ERROR_FIELD)).isEqualTo("403:admin_only:subscribe_denied");
            Message publish = user.getChannel(AdminConsole.CHANNEL).publishAsync(Map.of("sessions", 0))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(publish.isSuccessful()).isFalse();
            assertThat(publish.get(Message.ERROR_FIELD)).isEqualTo("403:server_only:publish_denied");
            BlockingQueue<Message> wildcard = new LinkedBlockingQueue<>();
            assertThat(user.getChannel("/bayeux/**").subscribeAsync((c, m) -> wildcard.add(m))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();

            // The admin session.
            BayeuxClient admin = client(base);
            assertThat(admin.handshakeAsync(adminExt(TOKEN)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .isSuccessful()).isTrue();
            BlockingQueue<Map<String, Object>> snapshots = new LinkedBlockingQueue<>();
            Message subscribed = admin.getChannel(AdminConsole.CHANNEL)
                    .subscribeAsync((c, m) -> snapshots.add(m.getDataAsMap()))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(subscribed.isSuccessful()).isTrue();
            assertThat(adminExtSeen.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the user's handshake")
                    .isEqualTo("none");
            assertThat(adminExtSeen.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the admin's handshake, its token taken out before listeners see it").isEqualTo("none");
            Map<String, Object> first = next(snapshots);
            for (int i = 0; i < 30 && number(first, "sessions", "websocket") < 2; i++) {
                first = next(snapshots); // a session counts by transport from its first connect on
            }
            assertThat(number(first, "sessions", "total")).as("the user and the admin").isEqualTo(2);
            assertThat(number(first, "sessions", "websocket")).isEqualTo(2);
            assertThat(number(first, "totals", "adminHandshakesRefused")).isEqualTo(1);
            assertThat(number(first, "totals", "handshakesRefused")).isEqualTo(1);

            // Three publishes on /room/a after the first snapshot: counted in the busiest channels, exactly.
            assertThat(user.getChannel("/room/a").subscribeAsync((c, m) -> { })
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            for (int i = 0; i < 3; i++) {
                assertThat(user.getChannel("/room/a").publishAsync("m" + i).get(WAIT.toMillis(),
                        TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            }
            long roomA = 0;
            long deliveriesSeen = 0;
            Map<String, Object> snapshot = first;
            for (int i = 0; i < 30 && roomA < 3; i++) {
                snapshot = next(snapshots);
                for (Object row : (List<?>) snapshot.get("busiest")) {
                    Map<?, ?> channel = (Map<?, ?>) row;
                    if ("/room/a".equals(channel.get("channel"))) {
                        roomA += ((Number) channel.get("messages")).longValue();
                    }
                }
                deliveriesSeen = Math.max(deliveriesSeen, number(snapshot, "totals", "deliveries"));
            }
            assertThat(roomA).isEqualTo(3);
            assertThat(deliveriesSeen).as("each publish delivered to its publisher").isGreaterThanOrEqualTo(3);
            assertThat(number(snapshot, "subscriptions")).as("/room/a, and the admin's and the wildcard's")
                    .isEqualTo(3);
            assertThat(snapshot.get("cluster")).isNull();
            assertThat(snapshot).containsKeys("rates", "latency", "queues", "channels", "connectsHeld");
            assertThat(wildcard).as("a wildcard subscriber sees no snapshot").isEmpty();
        }
    }

    @Test
    void anAdminSessionGetsTheEngineDumpOnRequestAndNoOtherSessionDoes() throws Exception {
        try (StandaloneServer server = new StandaloneServer(StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN",
                TOKEN)).port(0).host("127.0.0.1"))) {
            String base = "http://127.0.0.1:" + server.getPort();
            BayeuxClient user = client(base);
            assertThat(user.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            BlockingQueue<Map<String, Object>> userDumps = new LinkedBlockingQueue<>();
            user.getChannel(AdminConsole.DUMP_CHANNEL).addListener((c, m) -> userDumps.add(m.getDataAsMap()));
            assertThat(user.getChannel("/room/secret-free").subscribeAsync((c, m) -> { })
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            Message refused = user.getChannel(AdminConsole.DUMP_CHANNEL).publishAsync(Map.of())
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(refused.isSuccessful()).isFalse();
            assertThat(refused.get(Message.ERROR_FIELD)).isEqualTo("403:admin_only:publish_denied");

            BayeuxClient admin = client(base);
            assertThat(admin.handshakeAsync(adminExt(TOKEN)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .isSuccessful()).isTrue();
            BlockingQueue<Map<String, Object>> dumps = new LinkedBlockingQueue<>();
            admin.getChannel(AdminConsole.DUMP_CHANNEL).addListener((c, m) -> dumps.add(m.getDataAsMap()));
            assertThat(admin.getChannel(AdminConsole.DUMP_CHANNEL).publishAsync(Map.of())
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            String dump = (String) next(dumps).get("dump");

            assertThat(dump).startsWith("BayeuxEngine started\n").contains("+- sessions: ")
                    .contains("|  +- /room/secret-free: 1 subscribers\n").contains("+- cluster: none\n");
            assertThat(dump).doesNotContain(TOKEN).doesNotContain(user.getId()).doesNotContain(admin.getId());
            assertThat(userDumps).as("the dump goes to the admin session only").isEmpty();
        }
    }

    @Test
    void aClusterShowsWhetherItIsAvailable() throws Exception {
        StandaloneOptions options = StandaloneOptions.parse(Map.of("BAYEUX_ADMIN_TOKEN", TOKEN)).port(0)
                .host("127.0.0.1");
        FlippingCluster cluster = new FlippingCluster();
        options.testCluster = cluster;
        try (StandaloneServer server = new StandaloneServer(options)) {
            BayeuxClient admin = client("http://127.0.0.1:" + server.getPort());
            assertThat(admin.handshakeAsync(adminExt(TOKEN)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .isSuccessful()).isTrue();
            BlockingQueue<Map<String, Object>> snapshots = new LinkedBlockingQueue<>();
            assertThat(admin.getChannel(AdminConsole.CHANNEL).subscribeAsync((c, m) -> snapshots.add(m.getDataAsMap()))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isSuccessful()).isTrue();
            assertThat(next(snapshots).get("cluster")).isEqualTo(Map.of("kind", "other", "available", true));
            cluster.available = false;
            Object view = null;
            for (int i = 0; i < 30 && !Boolean.FALSE.equals(view); i++) {
                view = ((Map<?, ?>) next(snapshots).get("cluster")).get("available");
            }
            assertThat(view).isEqualTo(false);
        }
    }

    /** A cluster that says whether it is available as the test says. */
    private static final class FlippingCluster implements Cluster {
        volatile boolean available = true;

        @Override
        public void start(ClusterNode node) {
        }

        @Override
        public void stop() {
        }

        @Override
        public CompletionStage<Boolean> publish(ClusterMessage message) {
            return CompletableFuture.completedFuture(available);
        }

        @Override
        public boolean isAvailable() {
            return available;
        }
    }

    private static Map<String, Object> adminExt(String token) {
        return Map.of("ext", Map.of("admin", Map.of("token", token)));
    }

    private static Map<String, Object> next(BlockingQueue<Map<String, Object>> snapshots) throws Exception {
        Map<String, Object> snapshot = snapshots.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(snapshot).as("a snapshot within " + WAIT).isNotNull();
        return snapshot;
    }

    private static long number(Map<String, Object> snapshot, String... path) {
        Object value = snapshot;
        for (String key : path) {
            value = ((Map<?, ?>) value).get(key);
        }
        return ((Number) value).longValue();
    }

    private BayeuxClient client(String base) {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(base + "/bayeux")
                .transports(ClientTransport.WEBSOCKET).build());
        clients.add(client);
        return client;
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
