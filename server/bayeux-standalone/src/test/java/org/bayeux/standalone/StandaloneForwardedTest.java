package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import org.bayeux.testsupport.ForwardingProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Behind a TLS-terminating proxy, with {@code --forwarded}: the page's {@code https} origin passes the WebSocket
 * same-origin check, and the browser cookie is {@code Secure}. The test sends what such a proxy adds to each request.
 */
class StandaloneForwardedTest {
    private static final String PUBLIC_ORIGIN = "https://chat.example.com";
    private StandaloneServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(String... args) throws Exception {
        server = new StandaloneServer(StandaloneOptions.parse(args).port(0).host("127.0.0.1"));
    }

    /** The upgrade a browser on https://chat.example.com sends, as the proxy passes it on over plain HTTP. */
    private String upgradeThroughTheProxy() throws Exception {
        try (RawConnection proxied = new RawConnection(server.getPort())) {
            proxied.write("GET /bayeux HTTP/1.1\r\n"
                    + "Host: 127.0.0.1:" + server.getPort() + "\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Origin: " + PUBLIC_ORIGIN + "\r\n"
                    + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: chat.example.com\r\n"
                    + "X-Forwarded-For: 203.0.113.7\r\n\r\n");
            return proxied.readHead(10_000);
        }
    }

    private String handshakeThroughTheProxy() throws Exception {
        String body = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]";
        try (RawConnection proxied = new RawConnection(server.getPort())) {
            proxied.write("POST /bayeux/handshake HTTP/1.1\r\n"
                    + "Host: 127.0.0.1:" + server.getPort() + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n"
                    + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: chat.example.com\r\n"
                    + "X-Forwarded-For: 203.0.113.7\r\n\r\n" + body);
            return proxied.readHead(10_000);
        }
    }

    @Test
    void withForwardedTheHttpsOriginIsAcceptedAndTheCookieIsSecure() throws Exception {
        start("--forwarded");

        assertThat(upgradeThroughTheProxy()).startsWith("HTTP/1.1 101");
        String handshake = handshakeThroughTheProxy();
        assertThat(handshake).startsWith("HTTP/1.1 200");
        assertThat(cookieLine(handshake)).contains("BAYEUX_BROWSER=").containsIgnoringCase("; Secure");
        assertThat(handshake).doesNotContainIgnoringCase("\r\nServer:");
    }

    @Test
    void withoutForwardedTheHeadersAreIgnored() throws Exception {
        start();

        assertThat(upgradeThroughTheProxy()).as("https page, plain request: not the same origin")
                .startsWith("HTTP/1.1 403");
        String handshake = handshakeThroughTheProxy();
        assertThat(handshake).startsWith("HTTP/1.1 200");
        assertThat(cookieLine(handshake)).contains("BAYEUX_BROWSER=").doesNotContainIgnoringCase("Secure");
    }

    @Test
    void behindAForwardingProxyABrowserOnTheHttpsPageUsesWebSocket() throws Exception {
        start("--forwarded");
        try (ForwardingProxy proxy = new ForwardingProxy(server.getPort(), "https", "chat.example.com");
             RawConnection browser = new RawConnection(proxy.port())) {
            browser.write("GET /bayeux HTTP/1.1\r\nHost: 127.0.0.1:" + proxy.port() + "\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Origin: " + PUBLIC_ORIGIN + "\r\n\r\n");
            assertThat(browser.readHead(10_000)).startsWith("HTTP/1.1 101");

            browser.writeTextFrame("[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                    + "\"supportedConnectionTypes\":[\"websocket\"]}]");

            String reply = browser.readTextFrame(10_000);
            assertThat(reply).contains("\"channel\":\"/meta/handshake\"").contains("\"successful\":true");
        }
    }

    @Test
    void behindAForwardingProxyTheCookieIsSecureAndAClientCannotForgeTheHeaders() throws Exception {
        start("--forwarded");
        String body = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"long-polling\"]}]";
        try (ForwardingProxy proxy = new ForwardingProxy(server.getPort(), "https", "chat.example.com");
             RawConnection browser = new RawConnection(proxy.port())) {
            // Two requests on one connection; the second claims plain http itself, which the proxy replaces.
            for (String claimed : new String[] {"", "X-Forwarded-Proto: http\r\n"}) {
                browser.write("POST /bayeux/handshake HTTP/1.1\r\nHost: 127.0.0.1:" + proxy.port() + "\r\n"
                        + claimed + "Content-Type: application/json\r\nContent-Length: " + body.length()
                        + "\r\n\r\n" + body);
                String head = browser.readHead(10_000);
                assertThat(head).startsWith("HTTP/1.1 200");
                assertThat(cookieLine(head)).containsIgnoringCase("; Secure");
                int length = Integer.parseInt(head.replaceAll("(?is).*\r\ncontent-length: *(\\d+).*", "$1"));
                browser.socket.getInputStream().readNBytes(length);
            }
        }
    }

    private static String cookieLine(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Set-Cookie:", 0, 11)) {
                return line;
            }
        }
        throw new AssertionError("No Set-Cookie in " + head);
    }
}
