package org.bayeux.client;

import java.net.HttpCookie;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.bayeux.api.Message;
import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.SecurityPolicy;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.client.TestServer.RecordedRequest;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.bayeux.client.Clients.config;
import static org.bayeux.client.Clients.connected;
import static org.bayeux.client.Clients.subscribe;

/**
 * What travels in HTTP around the messages: cookies (each client its own), the configured headers, and the
 * credentials a hook refreshes before every handshake.
 */
class HttpFeaturesTest {
    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void configuredHeadersAndTheClientsCookiesGoWithEveryRequest(String transport) throws Exception {
        try (TestServer server = new TestServer();
             BayeuxClient client = new BayeuxClient(config(server.url(), transport)
                     .requestHeader("X-Client", "java-client-test").build())) {
            client.getCookieStore().add(URI.create(server.url()), cookie("preference", "dark"));
            connected(client);
            subscribe(client, "/h/a");

            List<RecordedRequest> requests = server.requests();
            assertThat(requests).isNotEmpty().allSatisfy(request -> {
                assertThat(request.headers.get("X-Client")).isEqualTo("java-client-test");
                assertThat(request.headers.get(HttpHeader.COOKIE)).contains("preference=dark");
            });
            if ("websocket".equals(transport)) {
                assertThat(requests).anyMatch(RecordedRequest::isUpgrade);
            }
        }
    }

    @Test
    void clientsSharingResourcesKeepTheirOwnCookiesAndBothHoldALongPoll() throws Exception {
        try (TestServer server = new TestServer();
             ClientResources shared = ClientResources.builder().build();
             BayeuxClient first = new BayeuxClient(config(server.url(), "long-polling").build(), shared);
             BayeuxClient second = new BayeuxClient(config(server.url(), "long-polling").build(), shared)) {
            List<Object> advisedIntervals = new CopyOnWriteArrayList<>();
            for (BayeuxClient client : List.of(first, second)) {
                client.getChannel(Message.META_CONNECT).addListener((channel, reply) -> {
                    if (reply.getAdvice() != null) {
                        advisedIntervals.add(reply.getAdvice().get(Message.INTERVAL_FIELD));
                    }
                });
                connected(client);
            }
            server.awaitConnectHeld(first.getId());
            server.awaitConnectHeld(second.getId());

            assertThat(browserCookie(first)).isNotNull().isNotEqualTo(browserCookie(second));
            assertThat(browserCookie(second)).isNotNull();
            assertThat(advisedIntervals).as("no multiple-clients advice").containsOnly(0L);
        }
    }

    private static String browserCookie(BayeuxClient client) {
        return client.getCookieStore().getCookies().stream().filter(c -> "BAYEUX_BROWSER".equals(c.getName()))
                .map(HttpCookie::getValue).findFirst().orElse(null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void theHandshakeHookRefreshesCredentialsBeforeEveryHandshake(String transport) throws Exception {
        AtomicInteger issued = new AtomicInteger();
        List<Boolean> rehandshakes = new CopyOnWriteArrayList<>();
        HandshakeHook hook = request -> CompletableFuture.supplyAsync(() -> "token-" + issued.incrementAndGet())
                .thenAccept(token -> {
                    rehandshakes.add(request.isRehandshake());
                    request.header("Authorization", "Bearer " + token);
                    request.ext("auth", Map.of("token", token));
                });
        try (TestServer server = new TestServer(engine -> { }, transports -> { },
                engine -> engine.setSecurityPolicy(new TokenPolicy()));
             BayeuxClient client = connected(config(server.url(), transport).handshakeHook(hook).build())) {
            String first = client.getId();

            server.restart();
            await().atMost(Clients.WAIT).until(() -> client.isConnected() && !first.equals(client.getId()));

            assertThat(rehandshakes).containsExactly(false, true);
            List<String> authorizations = server.requests().stream()
                    .map(request -> request.headers.get(HttpHeader.AUTHORIZATION)).collect(Collectors.toList());
            // The connect that learnt of the restart still had the old token; what followed the new handshake has the new.
            assertThat(authorizations).last().isEqualTo("Bearer token-2");
            assertThat(authorizations).doesNotContainNull();
        }
    }

    private static HttpCookie cookie(String name, String value) {
        HttpCookie cookie = new HttpCookie(name, value);
        cookie.setPath("/");
        cookie.setVersion(0);
        return cookie;
    }

    /** Lets in the handshakes whose ext carries a token. */
    private static final class TokenPolicy implements SecurityPolicy {
        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
            if (session.isLocalSession()) {
                return true;
            }
            Map<String, Object> ext = message.getExt();
            Object auth = ext == null ? null : ext.get("auth");
            return auth instanceof Map && String.valueOf(((Map<?, ?>) auth).get("token")).startsWith("token-");
        }
    }
}
