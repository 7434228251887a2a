package org.bayeux.transport.jetty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The browser cookie is found in the {@code Cookie} headers browsers and other clients actually send. */
class CookieHeaderTest {
    @Test
    void findsTheCookieAmongOthersWhereverItIs() {
        assertThat(CookieHeader.valueOf("BAYEUX_BROWSER=abc", "BAYEUX_BROWSER")).isEqualTo("abc");
        assertThat(CookieHeader.valueOf("a=1; BAYEUX_BROWSER=abc; b=2", "BAYEUX_BROWSER")).isEqualTo("abc");
        assertThat(CookieHeader.valueOf("a=1;BAYEUX_BROWSER=abc", "BAYEUX_BROWSER")).isEqualTo("abc");
        assertThat(CookieHeader.valueOf("  BAYEUX_BROWSER = abc ;x=y", "BAYEUX_BROWSER")).isEqualTo("abc");
    }

    @Test
    void theFirstOfTwoWinsAndQuotesAreRemoved() {
        assertThat(CookieHeader.valueOf("BAYEUX_BROWSER=\"q1\"; BAYEUX_BROWSER=q2", "BAYEUX_BROWSER")).isEqualTo("q1");
        assertThat(CookieHeader.valueOf("BAYEUX_BROWSER=", "BAYEUX_BROWSER")).isEmpty();
    }

    @Test
    void aSimilarNameOrAValueContainingTheNameIsNotTheCookie() {
        assertThat(CookieHeader.valueOf("XBAYEUX_BROWSER=1; BAYEUX_BROWSERX=2", "BAYEUX_BROWSER")).isNull();
        assertThat(CookieHeader.valueOf("a=BAYEUX_BROWSER=3", "BAYEUX_BROWSER")).isNull();
        assertThat(CookieHeader.valueOf("bayeux_browser=4", "BAYEUX_BROWSER")).isNull();
        assertThat(CookieHeader.valueOf("novalue; ;=5", "BAYEUX_BROWSER")).isNull();
        assertThat(CookieHeader.valueOf("", "BAYEUX_BROWSER")).isNull();
    }
}
