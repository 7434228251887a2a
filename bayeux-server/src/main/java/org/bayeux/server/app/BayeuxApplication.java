package org.bayeux.server.app;

/**
 * Application code that a host server loads and runs: the way to deploy services, a security policy, authorizers
 * and extensions without writing a {@code main}.
 *
 * <p>A host finds implementations with {@link java.util.ServiceLoader}: the application's jar lists its class in
 * {@code META-INF/services/org.bayeux.server.app.BayeuxApplication}, and the class has a public constructor without
 * parameters. Everything else happens in {@link #start}, which the host calls once, on one thread, after the
 * engine is configured and before the server accepts connections:</p>
 *
 * <pre>{@code
 * public final class EchoApplication implements BayeuxApplication {
 *     public void start(ApplicationContext context) {
 *         BayeuxServer server = context.server();
 *         server.setSecurityPolicy(new MyPolicy());
 *         server.createChannelIfAbsent("/chat/**", channel -> channel.addAuthorizer(new MyAuthorizer()));
 *         new EchoService(server); // extends BayeuxService, answers /service/echo
 *     }
 * }
 * }</pre>
 *
 * <p>An exception from {@link #start} stops the host's start: a server never runs with half its applications. Several
 * applications are started in the order the host found them and stopped in the reverse order. Applications share
 * one server, so two that each set a {@link org.bayeux.api.server.SecurityPolicy} leave the last one's in force;
 * compose policies in one application.</p>
 */
public interface BayeuxApplication {
    /**
     * Registers this application's services, policy, authorizers, extensions and listeners on
     * {@link ApplicationContext#server()}.
     *
     * @param context what the host offers: the server and the components it runs beside it
     * @throws Exception to stop the host's start; the host reports it with this application's class and jar
     */
    void start(ApplicationContext context) throws Exception;

    /**
     * Releases what {@link #start} took that the server does not own (threads, connections, files). Called once when
     * the host stops, while the server still runs, so that an application can still publish a farewell; not called
     * when {@link #start} failed. An exception is logged and the host goes on stopping the others.
     *
     * @throws Exception logged by the host
     */
    default void stop() throws Exception {
        // Services, listeners and extensions registered on the server end with it.
    }

    /** @return a name for logs and errors; the class name unless overridden */
    default String name() {
        return getClass().getName();
    }
}
