package org.bayeux.transport.jetty.example;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.config.BayeuxServerConfig;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.bayeux.server.ext.TimestampExtension;
import org.bayeux.server.ext.TimesyncExtension;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;

/**
 * The short fragments of {@code docs/configuration.md}, {@code extensions.md}, {@code transports.md},
 * {@code deployment.md} and {@code json-codecs.md}, compiled here so that they cannot drift from the API;
 * {@code ServerGuideTest} checks each doc shows its fragment word for word, and runs them.
 */
public final class DocSnippets {
    /** @return the engine of configuration.md, started */
    public static BayeuxEngine configuration() {
        // BEGIN configuration
        BayeuxServerConfig config = BayeuxServerConfig.builder()
                .timeout(Duration.ofSeconds(20))
                .maxInterval(Duration.ofSeconds(15))
                .maxQueue(5_000)
                .maxQueuePolicy(BayeuxServerConfig.MaxQueuePolicy.DROP_OLDEST)
                .build();
        BayeuxEngine server = BayeuxEngine.create(config);
        server.start();
        // END configuration
        return server;
    }

    /**
     * @param config the engine's configuration
     * @return the engine of extensions.md, started
     */
    public static BayeuxEngine extensions(BayeuxServerConfig config) {
        // BEGIN extensions
        BayeuxEngine server = BayeuxEngine.create(config);
        server.addExtension(new AcknowledgedMessagesExtension()); // ack
        server.addExtension(new TimesyncExtension());             // timesync
        server.addExtension(new TimestampExtension());            // timestamp
        server.start();
        // END extensions
        return server;
    }

    /**
     * @param host the address to listen on (a test gives 127.0.0.1)
     * @param port the port to listen on (a test gives 0: any free one)
     * @return the Jetty server of transports.md, started
     * @throws Exception if Jetty cannot start
     */
    public static Server transports(String host, int port) throws Exception {
        // BEGIN transports
        Server jetty = new Server(new InetSocketAddress(host, port));
        BayeuxEngine engine = BayeuxEngine.create(BayeuxServerConfig.defaults());
        TransportConfig transports = TransportConfig.builder()
                .allowedOrigins("https://app.example.com")
                .build();
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, transports);   // a ContextHandler at /bayeux
        jetty.start();                                                 // starts the engine too
        // END transports
        return jetty;
    }

    /**
     * @param host the address to listen on (a test gives 127.0.0.1)
     * @param port the port to listen on (a test gives 0: any free one)
     * @return the Jetty server of deployment.md, started
     * @throws Exception if Jetty cannot start
     */
    public static Server deployment(String host, int port) throws Exception {
        // BEGIN deployment
        Server jetty = new Server(new InetSocketAddress(host, port));
        BayeuxEngine bayeux = BayeuxEngine.create(BayeuxServerConfig.builder()
                .timeout(Duration.ofSeconds(25))
                .build());
        bayeux.addExtension(new AcknowledgedMessagesExtension());
        BayeuxEndpoint.mount(jetty, "/bayeux", bayeux, TransportConfig.builder()
                .allowedOrigins("https://app.example.com")
                .build());
        jetty.start();          // starts the engine too; jetty.stop() stops it
        // END deployment
        return jetty;
    }

    /** @return the codec of json-codecs.md */
    public JsonCodec jsonCodecs() {
        // BEGIN json-codecs
        JsonCodec codec = JsonCodecProvider.find("jackson", getClass().getClassLoader())
                .newCodec(JsonCodec.DEFAULT_MAX_NESTING_DEPTH);
        // END json-codecs
        return codec;
    }
}
