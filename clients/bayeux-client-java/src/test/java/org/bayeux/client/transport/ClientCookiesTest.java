package org.bayeux.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.HttpCookie;
import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class ClientCookiesTest {
    private static final URI SERVER = URI.create("http://127.0.0.1:8080/bayeux");

    private final ClientCookies cookies = new ClientCookies();

    @Test
    void theHeaderFollowsTheServersCookiesAndTheUsersChanges() {
        assertThat(cookies.header(SERVER)).isNull();

        cookies.keep(SERVER, List.of("BAYEUX_BROWSER=abc; Path=/; HttpOnly"));
        assertThat(cookies.header(SERVER)).isEqualTo("BAYEUX_BROWSER=abc");
        assertThat(cookies.header(SERVER)).isEqualTo("BAYEUX_BROWSER=abc");

        HttpCookie own = new HttpCookie("preference", "dark");
        own.setPath("/");
        own.setVersion(0);
        cookies.store().add(SERVER, own);
        assertThat(cookies.header(SERVER)).contains("BAYEUX_BROWSER=abc").contains("preference=dark");

        cookies.store().remove(SERVER, own);
        assertThat(cookies.header(SERVER)).isEqualTo("BAYEUX_BROWSER=abc");

        cookies.keep(SERVER, List.of("BAYEUX_BROWSER=def; Path=/"));
        assertThat(cookies.header(SERVER)).isEqualTo("BAYEUX_BROWSER=def");

        cookies.store().removeAll();
        assertThat(cookies.header(SERVER)).isNull();
    }

    @Test
    void anExpiredCookieIsNoLongerSent() {
        cookies.keep(SERVER, List.of("short=1; Max-Age=1; Path=/", "long=2; Path=/"));
        // The JDK writes a cookie with a Max-Age in the RFC 2965 form: short="1".
        assertThat(cookies.header(SERVER)).contains("short").contains("long");

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> !cookies.header(SERVER).contains("short"));
        assertThat(cookies.header(SERVER)).contains("long");
    }

    @Test
    void cookiesForAnotherPathAreNotSent() {
        cookies.keep(SERVER, List.of("elsewhere=1; Path=/other", "here=2; Path=/"));
        assertThat(cookies.header(SERVER)).isEqualTo("here=2");
    }
}
