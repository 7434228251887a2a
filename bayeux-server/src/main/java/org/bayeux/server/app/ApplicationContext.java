package org.bayeux.server.app;

import java.util.Optional;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.Presence;

/**
 * What a host offers a {@link BayeuxApplication} when it starts it.
 */
public interface ApplicationContext {
    /**
     * @return the server to register services, a security policy, authorizers, extensions and listeners on
     */
    BayeuxServer server();

    /**
     * A component the host runs beside the server, for an application that uses more than this SPI (and compiles
     * against the module that defines it). The standalone server offers its Oort node ({@code org.bayeux.oort.Oort})
     * when started with {@code --oort-url}, and its Redis backplane
     * ({@code org.bayeux.backplane.redis.RedisBackplane}) with {@code --backplane}.
     *
     * @param type the component's class, or an interface it implements
     * @param <T> the component's type
     * @return the host's component of that type, or empty when it runs none
     */
    <T> Optional<T> component(Class<T> type);

    /**
     * @return a class loader that sees the application's jars and the host's classes, to find the application's
     *         resources (the standalone server: one loader for every {@code --classpath} jar, whose parent is the
     *         server's own)
     */
    ClassLoader classLoader();

    /**
     * Who is here, on this node alone or across whichever cluster the host runs, so that an application needs no
     * branch per cluster.
     *
     * @return the engine's presence seam ({@link BayeuxEngine#presence()}), by default that of {@link #server()}
     * @throws UnsupportedOperationException if the host's server is not a {@link BayeuxEngine}
     */
    default Presence presence() {
        if (server() instanceof BayeuxEngine engine) {
            return engine.presence();
        }
        throw new UnsupportedOperationException("The host's server keeps no presence: " + server());
    }
}
