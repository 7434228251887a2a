package org.bayeux.oort;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Test nodes for the services on the mesh: starts nodes that dial every node started before (a full mesh without
 * gossip), waits until every node has every other joined (as {@link PeerMessaging} sees it), and closes them all.
 */
final class OortCluster implements AutoCloseable {
    final List<OortTestNode> nodes = new ArrayList<>();
    private final Consumer<Oort.Builder> settings;

    OortCluster(Consumer<Oort.Builder> settings) {
        this.settings = settings;
    }

    OortCluster() {
        this(oort -> { });
    }

    /** Starts one more node, seeded with every node started before. */
    OortTestNode add() throws Exception {
        OortTestNode node = new OortTestNode();
        nodes.add(node);
        List<String> seeds = new ArrayList<>();
        for (OortTestNode other : nodes) {
            if (other != node && other.oort != null) {
                seeds.add(other.url);
            }
        }
        node.start(oort -> {
            oort.seeds(seeds);
            settings.accept(oort);
        });
        return node;
    }

    /** Starts {@code count} nodes and waits for the full mesh. */
    OortCluster start(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            add();
        }
        awaitMesh();
        return this;
    }

    /** Waits until each running node has every other running node joined. */
    void awaitMesh() {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<OortTestNode> running = running();
            for (OortTestNode node : running) {
                if (node.oort.messaging().members().size() != running.size() - 1) {
                    return false;
                }
            }
            return true;
        });
    }

    List<OortTestNode> running() {
        return nodes.stream().filter(n -> n.jetty.isRunning()).toList();
    }

    OortTestNode get(int index) {
        return nodes.get(index);
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                nodes.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
