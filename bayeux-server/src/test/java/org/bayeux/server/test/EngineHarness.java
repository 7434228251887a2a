package org.bayeux.server.test;

import java.util.function.Consumer;

import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.config.BayeuxServerConfig;

/**
 * A started engine for tests, driven through the transport SPI by {@link TestClient}s: JSON in, JSON out, real
 * timers, no network. Close it to stop the engine.
 */
public final class EngineHarness implements AutoCloseable {
    private final BayeuxServerImpl server;

    private EngineHarness(BayeuxServerImpl server) {
        this.server = server;
    }

    /**
     * @param configure adjusts the configuration
     * @return a started engine
     */
    public static EngineHarness start(Consumer<BayeuxServerConfig.Builder> configure) {
        return start(configure, server -> { });
    }

    /**
     * @param configure adjusts the configuration
     * @param beforeStart what else to set on the engine before it starts (a cluster, a session store)
     * @return a started engine
     */
    public static EngineHarness start(Consumer<BayeuxServerConfig.Builder> configure,
            Consumer<BayeuxServerImpl> beforeStart) {
        // The suite runs once per codec; see the surefire executions in this module's pom.
        BayeuxServerConfig.Builder builder = BayeuxServerConfig.builder()
                .codec(System.getProperty("bayeux.test.codec", "jackson"));
        configure.accept(builder);
        BayeuxServerImpl server = new BayeuxServerImpl(builder.build());
        beforeStart.accept(server);
        server.start();
        return new EngineHarness(server);
    }

    /** @return a started engine with the default configuration */
    public static EngineHarness start() {
        return start(builder -> { });
    }

    /** @return the engine */
    public BayeuxServerImpl server() {
        return server;
    }

    /** @return a new client speaking to the engine like a long-polling HTTP client */
    public TestClient newClient() {
        return new TestClient(server, false);
    }

    /** @return a new client speaking to the engine like a WebSocket client: one carrier, pushes allowed */
    public TestClient newSocketClient() {
        return new TestClient(server, true);
    }

    @Override
    public void close() {
        server.stop();
    }
}
