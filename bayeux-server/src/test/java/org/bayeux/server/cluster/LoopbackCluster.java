package org.bayeux.server.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test double of a cluster: nodes in one JVM, each message handed as bytes to every other node's way in (a mesh),
 * or to every node's including its own (a backplane). Nothing but the SPI is used, which is what it proves enough.
 */
final class LoopbackCluster implements Cluster {
    private final List<LoopbackCluster> network;
    private final boolean backplane;
    private final List<ClusterMessage> published = new CopyOnWriteArrayList<>();
    private volatile ClusterNode node;
    private volatile RuntimeException failure;

    /**
     * @param network every node's cluster, this one included
     * @param backplane true to deliver every publish through the cluster, to its own node too
     */
    LoopbackCluster(List<LoopbackCluster> network, boolean backplane) {
        this.network = network;
        this.backplane = backplane;
        network.add(this);
    }

    @Override
    public void start(ClusterNode node) {
        this.node = node;
    }

    @Override
    public void stop() {
        node = null;
    }

    @Override
    public CompletionStage<Boolean> publish(ClusterMessage message) {
        if (failure instanceof ClusterUnavailableException) {
            return CompletableFuture.failedFuture(failure);
        }
        if (failure != null) {
            throw failure;
        }
        published.add(message);
        for (LoopbackCluster peer : network) {
            ClusterNode target = peer.node;
            if (target != null && (backplane || peer != this)) {
                target.deliver(message.json());
            }
        }
        return CompletableFuture.completedFuture(Boolean.TRUE);
    }

    @Override
    public boolean deliversLocalPublishes() {
        return !backplane;
    }

    List<ClusterMessage> published() {
        return published;
    }

    ClusterNode node() {
        return node;
    }

    /** @param failure thrown by the next publishes; a {@link ClusterUnavailableException} fails their stage instead */
    void failWith(RuntimeException failure) {
        this.failure = failure;
    }
}
