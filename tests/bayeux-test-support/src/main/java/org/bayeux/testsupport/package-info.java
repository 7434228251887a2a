/**
 * Helpers shared by several modules' tests: loopback TCP relays that stand in for the network (one that can pause
 * and cut connections) and for a TLS-terminating reverse proxy (one that adds the {@code X-Forwarded-*} headers);
 * for failover tests, a load balancer with health checks that cuts a failed node's connections with a reset
 * ({@link org.bayeux.testsupport.FailoverBalancer}) and a checker that counts lost, duplicated and reordered
 * deliveries and re-handshakes ({@link org.bayeux.testsupport.DeliveryChecker}). Test scope only.
 */
package org.bayeux.testsupport;
