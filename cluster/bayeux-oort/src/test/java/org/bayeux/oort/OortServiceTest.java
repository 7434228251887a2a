package org.bayeux.oort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.bayeux.server.cluster.ClusterMember;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** OortService and OortPrimaryService on real nodes on loopback. */
class OortServiceTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    private final OortCluster cluster = new OortCluster();
    private final List<OortService<Map<String, Object>, Object>> services = new ArrayList<>();
    private final List<OortPrimaryService<Object, Object>> primaries = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        cluster.close();
    }

    /**
     * A node whose "echo" service answers "<op> by <node url>", never answers "hang", and fails "fail"; and a
     * "counter" primary service whose primary is the first node.
     */
    private OortTestNode addNode(Duration timeout) throws Exception {
        OortTestNode node = new OortTestNode();
        List<String> seeds = cluster.nodes.stream().map(n -> n.url).toList();
        String primary = cluster.nodes.isEmpty() ? node.url : cluster.nodes.get(0).url;
        cluster.nodes.add(node);
        node.start(oort -> oort.seeds(seeds), oort -> {
            services.add(OortService.create(oort, "echo", timeout, (request, caller) -> switch ((String) request
                    .get("op")) {
                case "hang" -> new CompletableFuture<>();
                case "fail" -> throw new IllegalStateException("refused on purpose");
                default -> CompletableFuture.completedFuture(request.get("op") + " by " + node.url + " for "
                        + caller.url());
            }));
            primaries.add(OortPrimaryService.create(oort, "counter", primary, timeout,
                    (request, caller) -> CompletableFuture.completedFuture(((Number) request).longValue() + 1)));
        });
        return node;
    }

    private static Throwable failureOf(CompletionStage<?> stage, Duration within) throws Exception {
        try {
            stage.toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }

    @Test
    void aCallRunsOnItsLiveOwnerOrHereAndAFailureOfTheOwnerIsReported() throws Exception {
        OortTestNode a = addNode(LONG);
        OortTestNode b = addNode(LONG);
        cluster.awaitMesh();

        Object answer = services.get(0).call(b.url, Map.of("op", "hello")).toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertThat(answer).isEqualTo("hello by " + b.url + " for " + a.url);
        assertThat(services.get(0).call(a.url, Map.of("op", "here")).toCompletableFuture().get(30, TimeUnit.SECONDS))
                .isEqualTo("here by " + a.url + " for " + a.url);

        Throwable failed = failureOf(services.get(0).call(b.url, Map.of("op", "fail")), Duration.ofSeconds(30));
        assertThat(failed).isInstanceOf(OortServiceException.class).hasMessageContaining("refused on purpose");
        assertThat(((OortServiceException) failed).reason()).isEqualTo(OortServiceException.Reason.FAILED);

        // The primary is A, from either node.
        assertThat(primaries.get(0).isPrimary()).isTrue();
        assertThat(primaries.get(1).isPrimary()).isFalse();
        assertThat(primaries.get(1).call(41L).toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(42L);
        assertThat(primaries.get(0).call(1L).toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(2L);
        assertThat(services.get(0).pendingCalls()).isZero();
    }

    @Test
    void aCallToADeadOwnerFailsAtOnceAndACallInFlightFailsWhenItsOwnerLeaves() throws Exception {
        addNode(LONG);
        OortTestNode b = addNode(LONG);
        cluster.awaitMesh();
        ClusterMember bMember = cluster.get(0).oort.messaging().memberAt(b.url);

        CompletionStage<Object> inFlight = services.get(0).call(b.url, Map.of("op", "hang"));
        await().atMost(Duration.ofSeconds(10)).until(() -> services.get(0).pendingCalls() == 1);
        b.close();
        long start = System.nanoTime();
        Throwable left = failureOf(inFlight, Duration.ofSeconds(30));
        assertThat(((OortServiceException) left).reason()).isEqualTo(OortServiceException.Reason.LEFT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG);

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.get(0).oort.messaging().members().isEmpty());
        CompletableFuture<Object> dead = services.get(0).call(b.url, Map.of("op", "hello")).toCompletableFuture();
        assertThat(dead).as("failed at once, not after the timeout").isCompletedExceptionally();
        assertThatThrownBy(dead::join).hasCauseInstanceOf(OortServiceException.class)
                .hasMessageContaining("no node is joined at " + b.url);
        CompletableFuture<Object> byMember = services.get(0).call(bMember, Map.of("op", "hello"))
                .toCompletableFuture();
        assertThat(byMember).isCompletedExceptionally();
        // The primary of B's service was A: still there. A service whose primary is B fails at once.
        OortPrimaryService<Object, Object> toB = OortPrimaryService.create(cluster.get(0).oort, "other", b.url, LONG,
                (request, caller) -> CompletableFuture.completedFuture(request));
        assertThat(toB.call("x").toCompletableFuture()).isCompletedExceptionally();
    }

    @Test
    void aNodeThatStopsFailsItsOwnCallsInFlight() throws Exception {
        OortTestNode a = addNode(LONG);
        OortTestNode b = addNode(LONG);
        cluster.awaitMesh();
        CompletionStage<Object> inFlight = services.get(0).call(b.url, Map.of("op", "hang"));
        await().atMost(Duration.ofSeconds(10)).until(() -> services.get(0).pendingCalls() == 1);
        a.close();
        Throwable left = failureOf(inFlight, Duration.ofSeconds(30));
        assertThat(((OortServiceException) left).reason()).isEqualTo(OortServiceException.Reason.LEFT);
    }

    @Test
    void aCallTimesOutWhenTheOwnerDoesNotAnswer() throws Exception {
        Duration timeout = Duration.ofMillis(500);
        addNode(timeout);
        OortTestNode b = addNode(timeout);
        cluster.awaitMesh();
        long start = System.nanoTime();
        Throwable failed = failureOf(services.get(0).call(b.url, Map.of("op", "hang")), Duration.ofSeconds(30));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(timeout);
        assertThat(((OortServiceException) failed).reason()).isEqualTo(OortServiceException.Reason.TIMEOUT);
        assertThat(failed).hasMessageContaining("did not answer within 500 ms");
        assertThat(services.get(0).pendingCalls()).isZero();

        Throwable here = failureOf(services.get(1).call(b.url, Map.of("op", "hang")), Duration.ofSeconds(30));
        assertThat(((OortServiceException) here).reason()).isEqualTo(OortServiceException.Reason.TIMEOUT);
    }

    @Test
    void aStoppedServiceIsUnregisteredFailsItsWaitingCallsAndTakesNoMore() throws Exception {
        OortTestNode a = addNode(LONG);
        OortTestNode b = addNode(LONG);
        cluster.awaitMesh();
        OortService<Map<String, Object>, Object> onA = services.get(0);
        CompletionStage<Object> waiting = onA.call(b.url, Map.of("op", "hang"));
        await().atMost(LONG).until(() -> onA.pendingCalls() == 1);
        int membershipListeners = a.oort.messaging().membershipListenerCount();

        onA.stop();
        onA.stop();

        assertThat(onA.isStopped()).isTrue();
        assertThat(a.oort.messaging().isRegistered("service/echo")).isFalse();
        assertThat(a.oort.messaging().isRegistered("service/counter")).as("the others stay").isTrue();
        var channel = a.engine.getChannel("/service/oort/service/echo");
        assertThat(channel == null ? List.of() : channel.getMessageListeners()).isEmpty();
        assertThat(a.oort.messaging().membershipListenerCount()).isEqualTo(membershipListeners - 1);
        assertThat(onA.pendingCalls()).isZero();
        Throwable failed = failureOf(waiting, Duration.ofSeconds(5));
        assertThat(((OortServiceException) failed).reason()).isEqualTo(OortServiceException.Reason.NOT_SENT);
        Throwable afterStop = failureOf(onA.call(a.url, Map.of("op", "here")), Duration.ofSeconds(5));
        assertThat(((OortServiceException) afterStop).reason()).isEqualTo(OortServiceException.Reason.NOT_SENT);

        // A call from B to A's stopped service gets no answer: it times out on B, whose own service still runs.
        OortService<Map<String, Object>, Object> onB = services.get(1);
        CompletionStage<Object> toStopped = onB.call(a.url, Map.of("op", "hello"));
        assertThat(onB.call(b.url, Map.of("op", "here")).toCompletableFuture().get(30, TimeUnit.SECONDS))
                .isEqualTo("here by " + b.url + " for " + b.url);
        assertThat(toStopped.toCompletableFuture().isDone()).isFalse();
        assertThat(primaries.get(1).call(5L).toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(6L);
        assertThat(toStopped.toCompletableFuture().isDone()).as("A's echo answers nothing any more").isFalse();
    }
}
