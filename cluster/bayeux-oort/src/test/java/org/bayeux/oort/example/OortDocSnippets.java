package org.bayeux.oort.example;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.bayeux.oort.Oort;
import org.bayeux.oort.OortMap;
import org.bayeux.oort.OortObject;
import org.bayeux.oort.OortService;
import org.bayeux.oort.Seti;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;

/**
 * The Java fragments of {@code docs/cluster.md}'s Oort sections, compiled so that they cannot drift from the API
 * ({@code OortDocsTest} checks the doc shows them word for word, and runs them as two nodes on loopback that mesh and
 * carry a message).
 */
public final class OortDocSnippets {
    private OortDocSnippets() {
    }

    /**
     * @param jetty the node's Jetty server
     * @param selfUrl this node's URL
     * @param seed a node dialled at start
     * @param secretFile the shared secret
     * @return the node's Oort
     * @throws Exception if the secret cannot be read or Jetty cannot start
     */
    public static Oort embedding(Server jetty, String selfUrl, String seed, Path secretFile) throws Exception {
        // BEGIN oort-embedding
        BayeuxEngine engine = BayeuxEngine.create();
        Oort oort = Oort.builder(engine)
                .url(selfUrl)                                      // this node, as the others reach it
                .seeds(List.of(seed))                              // nodes dialled at start
                .channels(List.of("/chat/**"))                     // observed channels (default /**)
                .secret(Files.readAllBytes(secretFile))            // the same on every node, at least 32 bytes
                .build();                                          // checks the configuration, sets the engine's cluster
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, TransportConfig.defaults());
        jetty.start();                                             // starts the engine, and Oort with it
        // END oort-embedding
        return oort;
    }

    /**
     * @param engine the node's engine
     * @param jetty the node's Jetty server, with the engine mounted
     * @param url this node's URL
     * @param seeds the nodes dialled at start
     * @param secret the shared secret
     * @return the node's Oort
     * @throws Exception if Jetty cannot start
     */
    public static Oort objects(BayeuxEngine engine, Server jetty, String url, List<String> seeds, byte[] secret)
            throws Exception {
        // BEGIN oort-objects
        Oort oort = Oort.builder(engine).url(url).seeds(seeds).secret(secret).build();
        Seti seti = new Seti(oort);
        OortMap<Object> members = OortMap.create(oort, "members");
        OortObject<Long> online = OortObject.create(oort, "online", 0L);
        OortService<Map<String, Object>, Object> rooms = OortService.create(oort, "rooms", Duration.ofSeconds(5),
                (request, caller) -> CompletableFuture.completedFuture(Map.of("ok", true)));
        jetty.start();
        // END oort-objects
        return oort;
    }
}
