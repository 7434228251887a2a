/**
 * The application SPI: how a jar of application code (services, a security policy, authorizers, extensions) is
 * hosted by a server that it does not start itself, such as the standalone server ({@code --classpath}, or the
 * distribution's {@code apps/} folder).
 *
 * <p>An application implements {@link org.bayeux.server.app.BayeuxApplication} and names its class in
 * {@code META-INF/services/org.bayeux.server.app.BayeuxApplication}; the host finds it with
 * {@link java.util.ServiceLoader}, calls {@link org.bayeux.server.app.BayeuxApplication#start} once before the
 * server takes requests, and {@link org.bayeux.server.app.BayeuxApplication#stop} when it shuts down. The SPI lives
 * in {@code bayeux-server}, beside {@link org.bayeux.server.BayeuxService}, so that an application compiles against
 * {@code bayeux-api} and {@code bayeux-server} only (both {@code provided}: the host supplies them).</p>
 */
package org.bayeux.server.app;
