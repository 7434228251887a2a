package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.bayeux.server.cluster.ClusterMember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** OortObject, OortMap and OortList on real nodes on loopback. */
class OortObjectTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final OortCluster cluster = new OortCluster();
    private final List<OortObject<Long>> counters = new ArrayList<>();
    private final List<OortMap<Object>> maps = new ArrayList<>();
    private final List<OortList<Object>> lists = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    /** A node with a counter, a map and a list, created before it starts; seeded with every node before it. */
    private OortTestNode addNode(int maxMessageBytes) throws Exception {
        OortTestNode node = new OortTestNode();
        List<String> seeds = cluster.nodes.stream().map(n -> n.url).toList();
        cluster.nodes.add(node);
        node.start(oort -> oort.seeds(seeds).maxMessageBytes(maxMessageBytes), oort -> {
            counters.add(OortObject.create(oort, "counter", 0L));
            maps.add(OortMap.create(oort, "map"));
            lists.add(OortList.create(oort, "list"));
        });
        return node;
    }

    private OortTestNode addNode() throws Exception {
        return addNode(512 * 1024);
    }

    /** Waits until every object on every node has the part of every node: the joins' exchanges are done. */
    private void awaitAllParts() {
        int nodes = cluster.running().size();
        await().atMost(WAIT).until(() -> counters.stream().allMatch(o -> o.parts().size() == nodes)
                && maps.stream().allMatch(o -> o.parts().size() == nodes)
                && lists.stream().allMatch(o -> o.parts().size() == nodes));
    }

    private static <T, R> void awaitOnAll(List<? extends OortObject<T>> objects, Function<OortObject<T>, R> view,
            R expected) {
        await().atMost(WAIT).untilAsserted(() -> {
            for (OortObject<T> object : objects) {
                assertThat(view.apply(object)).isEqualTo(expected);
            }
        });
    }

    @Test
    void updatesFromThreeNodesAreMergedOnEveryNode() throws Exception {
        for (int i = 0; i < 3; i++) {
            addNode();
        }
        cluster.awaitMesh();
        awaitAllParts();
        for (int i = 0; i < 3; i++) {
            counters.get(i).setLocal(i + 1L);
            maps.get(i).put("node" + i, (long) i);
            lists.get(i).add("a" + i);
            lists.get(i).add("shared");
        }
        awaitOnAll(counters, counter -> counter.merge(OortMergers.sumLongs()), 6L);
        awaitOnAll(maps, map -> ((OortMap<Object>) map).getMerged(), Map.of("node0", 0L, "node1", 1L, "node2", 2L));
        awaitOnAll(lists, list -> list.merge(OortMergers.unionLists()).size(), 4);
        assertThat(lists.get(1).getMerged()).hasSize(6).startsWith("a1", "shared");
        assertThat(lists.get(0).merge(OortMergers.unionLists())).startsWith("a0", "shared");

        maps.get(1).remove("node1");
        counters.get(2).setLocal(10L);
        awaitOnAll(maps, map -> ((OortMap<Object>) map).getMerged(), Map.of("node0", 0L, "node2", 2L));
        awaitOnAll(counters, counter -> counter.merge(OortMergers.sumLongs()), 13L);
        assertThat(counters.get(2).version()).isEqualTo(2);
        assertThat(counters.get(0).gaps()).isZero();
    }

    @Test
    void aLateJoinerGetsEveryPartAndADepartedNodesPartIsDropped() throws Exception {
        addNode();
        addNode();
        cluster.awaitMesh();
        maps.get(0).put("a", "from A");
        maps.get(1).put("b", "from B");
        counters.get(0).setLocal(5L);
        counters.get(1).setLocal(7L);

        OortTestNode c = addNode();
        cluster.awaitMesh();
        awaitOnAll(maps, map -> ((OortMap<Object>) map).getMerged(), Map.of("a", "from A", "b", "from B"));
        awaitOnAll(counters, counter -> counter.merge(OortMergers.sumLongs()), 12L);

        List<String> removed = new CopyOnWriteArrayList<>();
        maps.get(0).addListener(new OortObject.Listener<>() {
            @Override
            public void removed(ClusterMember member, Map<String, Object> part) {
                removed.add(member.id() + " " + part);
            }
        });
        String cId = c.oort.id();
        maps.get(2).put("c", "from C");
        await().atMost(WAIT).until(() -> maps.get(0).getMerged().containsKey("c"));
        c.close();
        await().atMost(WAIT).until(() -> !maps.get(0).getMerged().containsKey("c")
                && !maps.get(1).getMerged().containsKey("c"));
        assertThat(maps.get(0).parts()).doesNotContainKey(cId);
        assertThat(removed).containsExactly(cId + " {c=from C}");
    }

    @Test
    void aVersionGapMakesTheReceiverPullTheWholePart() throws Exception {
        addNode();
        addNode();
        cluster.awaitMesh();
        awaitAllParts();
        OortTestNode b = cluster.get(1);
        AtomicInteger dropped = new AtomicInteger();
        // B loses A's second change of the map.
        b.oort.messaging().dropIncoming = (service, data) -> service.equals("object/map")
                && "delta".equals(data.get("type")) && Long.valueOf(2).equals(data.get("version"))
                && dropped.incrementAndGet() == 1;
        maps.get(0).put("k1", 1L);
        maps.get(0).put("k2", 2L);
        maps.get(0).put("k3", 3L);
        await().atMost(WAIT).until(() -> maps.get(1).getMerged().equals(Map.of("k1", 1L, "k2", 2L, "k3", 3L)));
        assertThat(dropped.get()).isEqualTo(1);
        assertThat(maps.get(1).gaps()).isEqualTo(1);
        assertThat(maps.get(1).pulls()).isEqualTo(1);

        // Changes after the pull apply one by one again.
        maps.get(0).put("k4", 4L);
        await().atMost(WAIT).until(() -> maps.get(1).getMerged().containsKey("k4"));
        assertThat(maps.get(1).pulls()).isEqualTo(1);
    }

    @Test
    void concurrentChangesOnOneNodeArriveInVersionOrder() throws Exception {
        addNode();
        addNode();
        cluster.awaitMesh();
        awaitAllParts();
        int threads = 4;
        int each = 250;
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            writers.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    maps.get(0).put("t" + thread + "-" + i, (long) i);
                    if (i % 10 == 0) {
                        maps.get(0).remove("t" + thread + "-" + (i - 10));
                    }
                }
            }));
        }
        writers.forEach(Thread::start);
        for (Thread writer : writers) {
            writer.join(60_000);
        }
        Map<String, Object> expected = maps.get(0).getLocal();
        assertThat(expected).hasSize(threads * each - threads * (each / 10 - 1));
        await().atMost(Duration.ofSeconds(60)).until(() -> maps.get(1).parts().get(cluster.get(0).oort.id())
                .equals(expected));
        assertThat(maps.get(1).gaps()).as("one link, changes sent in version order").isZero();
    }

    @Test
    void aPartLargerThanTheLimitIsRefusedAndNotSent() throws Exception {
        addNode(4096);
        addNode(4096);
        cluster.awaitMesh();
        awaitAllParts();
        maps.get(0).put("small", "x");
        await().atMost(WAIT).until(() -> maps.get(1).getMerged().containsKey("small"));

        assertThatThrownBy(() -> maps.get(0).put("big", "y".repeat(5000)))
                .isInstanceOf(OortMessageTooLargeException.class)
                .hasMessageContaining("Oort object 'map'").hasMessageContaining("oort.maxMessageBytes=4096");
        assertThatThrownBy(() -> lists.get(0).add("z".repeat(5000))).isInstanceOf(OortMessageTooLargeException.class);
        assertThatThrownBy(() -> maps.get(0).put("not json", new Object()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(maps.get(0).getLocal()).isEqualTo(Map.of("small", "x"));
        assertThat(maps.get(0).version()).isEqualTo(1);
        assertThat(lists.get(0).getLocal()).isEmpty();

        // The next change is numbered 2: the refused one took no number, so B sees no gap.
        maps.get(0).put("after", "y");
        await().atMost(WAIT).until(() -> maps.get(1).getMerged().containsKey("after"));
        assertThat(maps.get(1).getMerged()).doesNotContainKey("big");
        assertThat(maps.get(1).gaps()).isZero();
    }

    @Test
    void aStoppedObjectIsUnregisteredAndHearsNothingMore() throws Exception {
        OortTestNode a = addNode();
        addNode();
        cluster.awaitMesh();
        awaitAllParts();
        OortMap<Object> onA = maps.get(0);
        List<String> told = new CopyOnWriteArrayList<>();
        onA.addListener(new OortObject.Listener<>() {
            @Override
            public void updated(ClusterMember member, Map<String, Object> part) {
                told.add(member.id());
            }
        });
        int membershipListeners = a.oort.messaging().membershipListenerCount();

        onA.stop();
        onA.stop();

        assertThat(onA.isStopped()).isTrue();
        assertThat(a.oort.messaging().isRegistered("object/map")).isFalse();
        assertThat(a.oort.messaging().isRegistered("object/list")).as("the others stay").isTrue();
        var channel = a.engine.getChannel("/service/oort/object/map");
        assertThat(channel == null ? List.of() : channel.getMessageListeners()).isEmpty();
        assertThat(a.oort.messaging().membershipListenerCount()).isEqualTo(membershipListeners - 1);
        assertThat(onA.parts()).containsOnlyKeys(a.oort.id());

        // B's map changes, then its list: the list's change comes after the map's on B's link to A.
        maps.get(1).put("after", 1L);
        lists.get(1).add("marker");
        await().atMost(WAIT).until(() -> lists.get(0).getMerged().contains("marker"));
        assertThat(told).as("nothing reached the stopped map").isEmpty();
        assertThat(onA.parts()).containsOnlyKeys(a.oort.id());
    }
}
