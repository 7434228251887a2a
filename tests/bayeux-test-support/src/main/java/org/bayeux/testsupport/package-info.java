/**
 * Helpers shared by several modules' tests: loopback TCP relays that stand in for the network (one that can pause
 * and cut connections) and for a TLS-terminating reverse proxy (one that adds the {@code X-Forwarded-*} headers).
 * Test scope only.
 */
package org.bayeux.testsupport;
