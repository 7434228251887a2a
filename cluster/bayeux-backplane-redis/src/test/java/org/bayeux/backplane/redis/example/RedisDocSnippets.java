package org.bayeux.backplane.redis.example;

import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.server.BayeuxEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java fragments of {@code docs/cluster.md}'s Redis backplane sections, compiled so that they cannot drift from
 * the API ({@code RedisDocsTest} checks the doc shows them word for word, and runs them on a redis-server of its own:
 * a message published on the first's engine reaches a second node, and presence names a subscriber of that node).
 */
public final class RedisDocSnippets {
    private static final Logger log = LoggerFactory.getLogger(RedisDocSnippets.class);

    private RedisDocSnippets() {
    }

    /**
     * @param redisUri where Redis listens
     * @return the engine, started, on the backplane
     */
    public static BayeuxEngine embedding(String redisUri) {
        // BEGIN redis-embedding
        BayeuxEngine engine = BayeuxEngine.create();
        engine.setCluster(RedisBackplane.builder().uri(redisUri).build());   // redis://host:6379
        engine.start();
        // END redis-embedding
        return engine;
    }

    /**
     * @param backplane a node's backplane
     * @return the sessions present on /chat/room, by session id, with their node ids
     */
    public static CompletionStage<Map<String, String>> presence(RedisBackplane backplane) {
        // BEGIN redis-presence
        backplane.addPresenceListener(event -> log.info("{} {} {} on {}", event.sessionId(),
                event.joined() ? "joined" : "left", event.channel(), event.nodeId()));
        CompletionStage<Map<String, String>> present = backplane.presence("/chat/room");   // sessionId -> nodeId
        // END redis-presence
        return present;
    }
}
