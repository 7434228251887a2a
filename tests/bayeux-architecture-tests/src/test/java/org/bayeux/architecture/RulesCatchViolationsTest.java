package org.bayeux.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.List;
import java.util.Set;
import org.bayeux.architecture.ArchitectureRules.AllowedDependency;
import org.junit.jupiter.api.Test;

/**
 * Each kind of architecture rule, run against the deliberately bad layout of
 * {@code org.bayeux.architecture.fixture}, fails, and names the class that broke it; an allow-list lets exactly its
 * entries pass, and names its stale entries.
 */
class RulesCatchViolationsTest {
    private static final String FIXTURE = "org.bayeux.architecture.fixture";
    private static final JavaClasses BAD = new ClassFileImporter().importPackages(FIXTURE);

    @Test
    void apiDependingOnOursFails() {
        assertThatThrownBy(() -> ArchitectureRules.apiDependsOnNothingOfOurs(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".api.ApiReachingUp")
                .hasMessageNotContaining(FIXTURE + ".api.FixtureApi");
    }

    @Test
    void engineDependingOnTransportFails() {
        assertThatThrownBy(() -> ArchitectureRules.engineDependsOnNothingBuiltOnIt(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".server.EngineReachingOut");
    }

    @Test
    void transportDependingOnClientFails() {
        assertThatThrownBy(() -> ArchitectureRules.transportsDependOnNoClientOrTool(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".transport.http.TransportReachingClient")
                .hasMessageContaining(FIXTURE + ".transport.http.TransportReachingCluster")
                .hasMessageNotContaining("<" + FIXTURE + ".transport.http.FixtureTransport");
    }

    @Test
    void clientDependingOnMoreThanTheApiFails() {
        assertThatThrownBy(() -> ArchitectureRules.clientDependsOnlyOnApi(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".client.ClientReachingCodec")
                .hasMessageNotContaining("<" + FIXTURE + ".client.FixtureClient");
    }

    @Test
    void oortReachingIntoTheEngineFails() {
        assertThatThrownBy(() -> ArchitectureRules.oortUsesOnlyApiClusterSpiEngineAndClient(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".oort.OortReachingEngine")
                .hasMessageNotContaining("<" + FIXTURE + ".oort.FixtureOort");
    }

    @Test
    void dependingOnOortFails() {
        assertThatThrownBy(() -> ArchitectureRules.onlyTheServerUsesAClusterModule(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".load.LoadReachingOort")
                .hasMessageContaining(FIXTURE + ".load.LoadReachingBackplane");
    }

    @Test
    void backplaneDependingOnMoreThanTheClusterSpiFails() {
        assertThatThrownBy(() -> ArchitectureRules.backplanesUseOnlyTheClusterSpi(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".backplane.redis.BackplaneReachingEngine")
                .hasMessageNotContaining("<" + FIXTURE + ".backplane.redis.FixtureBackplane");
    }

    @Test
    void engineInternalsOutsideTheEngineFailUnlessAllowListed() {
        Set<String> allowList = Set.of(FIXTURE + ".transport.http.LegacyTransport");

        assertThatThrownBy(() -> ArchitectureRules.noEngineInternalsOutsideEngine(FIXTURE, Set.of()).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".transport.http.LegacyTransport")
                .hasMessageContaining(FIXTURE + ".transport.http.NewTransport");
        // The allow-listed class and its nested classes pass; the new violator still fails.
        assertThatThrownBy(() -> ArchitectureRules.noEngineInternalsOutsideEngine(FIXTURE, allowList).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(FIXTURE + ".transport.http.NewTransport")
                .hasMessageNotContaining("LegacyTransport");
        assertThatCode(() -> ArchitectureRules.noEngineInternalsOutsideEngine(FIXTURE,
                Set.of(FIXTURE + ".transport.http.LegacyTransport", FIXTURE + ".transport.http.NewTransport"))
                .check(BAD)).doesNotThrowAnyException();
    }

    @Test
    void engineInternalsAllowListEntriesThatNoLongerViolateAreStale() {
        Set<String> allowList = Set.of(FIXTURE + ".transport.http.LegacyTransport",
                FIXTURE + ".transport.http.FixtureTransport", FIXTURE + ".transport.http.Removed");

        assertThat(ArchitectureRules.staleEngineInternalsEntries(BAD, FIXTURE, allowList))
                .containsExactlyInAnyOrder(FIXTURE + ".transport.http.FixtureTransport",
                        FIXTURE + ".transport.http.Removed");
    }

    @Test
    void cycleBetweenTopLevelPackagesFails() {
        assertThatThrownBy(() -> ArchitectureRules.noCyclesBetweenTopLevelPackages(FIXTURE).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Cycle detected: Slice api")
                .hasMessageContaining(FIXTURE + ".api.ApiReachingUp");
    }

    @Test
    void cycleBetweenEnginePackagesFailsUnlessAllowListed() {
        String helperToEngine = FIXTURE + ".server.internal.Helper";

        assertThatThrownBy(() -> ArchitectureRules.noCyclesBetweenPackages(FIXTURE, List.of()).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Slice server.internal")
                .hasMessageContaining(helperToEngine);
        // Allowing the dependency that closes the engine's cycle leaves the other cycle (api and server) failing.
        List<AllowedDependency> allowList = List.of(
                new AllowedDependency(FIXTURE + ".server.internal", FIXTURE + ".server.Engine"));
        assertThatThrownBy(() -> ArchitectureRules.noCyclesBetweenPackages(FIXTURE, allowList).check(BAD))
                .isInstanceOf(AssertionError.class)
                .hasMessageNotContaining("Slice server.internal")
                .hasMessageContaining(FIXTURE + ".api.ApiReachingUp");
    }

    @Test
    void packageCycleAllowListEntriesWhoseDependencyIsGoneAreStale() {
        AllowedDependency present =
                new AllowedDependency(FIXTURE + ".server.internal.Helper", FIXTURE + ".server.Engine");
        AllowedDependency gone = new AllowedDependency(FIXTURE + ".server.Engine", FIXTURE + ".api.FixtureApi");

        assertThat(ArchitectureRules.stalePackageCycleEntries(BAD, List.of(present, gone))).containsExactly(gone);
    }
}
