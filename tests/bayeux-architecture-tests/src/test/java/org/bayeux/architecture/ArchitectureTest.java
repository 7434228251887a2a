package org.bayeux.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bayeux.architecture.ArchitectureRules.ENGINE_INTERNALS_ALLOW_LIST;
import static org.bayeux.architecture.ArchitectureRules.PACKAGE_CYCLE_ALLOW_LIST;
import static org.bayeux.architecture.ArchitectureRules.ROOT;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/**
 * Our modules' main classes (every {@code org.bayeux} class on this module's test class path, tests left out) kept
 * to the module plan of {@code docs/architecture.md}: see "Rules kept by tests" there.
 */
@AnalyzeClasses(packages = ROOT, importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule apiDependsOnNothingOfOurs = ArchitectureRules.apiDependsOnNothingOfOurs(ROOT);

    @ArchTest
    static final ArchRule engineDependsOnNothingBuiltOnIt = ArchitectureRules.engineDependsOnNothingBuiltOnIt(ROOT);

    @ArchTest
    static final ArchRule transportsDependOnNoClientOrTool = ArchitectureRules.transportsDependOnNoClientOrTool(ROOT);

    @ArchTest
    static final ArchRule clientDependsOnlyOnApi = ArchitectureRules.clientDependsOnlyOnApi(ROOT);

    @ArchTest
    static final ArchRule oortUsesOnlyApiClusterSpiEngineAndClient =
            ArchitectureRules.oortUsesOnlyApiClusterSpiEngineAndClient(ROOT);

    @ArchTest
    static final ArchRule onlyTheServerUsesAClusterModule = ArchitectureRules.onlyTheServerUsesAClusterModule(ROOT);

    @ArchTest
    static final ArchRule backplanesUseOnlyTheClusterSpi = ArchitectureRules.backplanesUseOnlyTheClusterSpi(ROOT);

    @ArchTest
    static final ArchRule engineParts = ArchitectureRules.partsDoNotHoldTheirFacade(
            ROOT + ".server.BayeuxServerImpl", Set.of(ROOT + ".server.BayeuxEngine")); // its factory

    @ArchTest
    static final ArchRule oortParts = ArchitectureRules.partsDoNotHoldTheirFacade(ROOT + ".oort.Oort",
            Set.of(ROOT + ".oort.Seti", ROOT + ".oort.OortObject", ROOT + ".oort.OortMap",
                    ROOT + ".oort.OortList", ROOT + ".oort.OortService", ROOT + ".oort.OortPrimaryService"));

    @ArchTest
    static final ArchRule redisBackplaneParts = ArchitectureRules.partsDoNotHoldTheirFacade(
            ROOT + ".backplane.redis.RedisBackplane", Set.of());

    @ArchTest
    static final ArchRule clientParts = ArchitectureRules.partsDoNotHoldTheirFacade(
            // The loop holds the client only to pass it to state listeners, whose callback names it; it calls nothing on it.
            ROOT + ".client.BayeuxClient", Set.of(ROOT + ".client.SessionLoop"));

    @ArchTest
    static final ArchRule noEngineInternalsOutsideEngine =
            ArchitectureRules.noEngineInternalsOutsideEngine(ROOT, ENGINE_INTERNALS_ALLOW_LIST);

    @ArchTest
    static final ArchRule noCyclesBetweenTopLevelPackages = ArchitectureRules.noCyclesBetweenTopLevelPackages(ROOT);

    @ArchTest
    static final ArchRule noCyclesBetweenPackages =
            ArchitectureRules.noCyclesBetweenPackages(ROOT, PACKAGE_CYCLE_ALLOW_LIST);

    @ArchTest
    static void engineInternalsAllowListHasNoStaleEntry(JavaClasses classes) {
        assertThat(ArchitectureRules.staleEngineInternalsEntries(classes, ROOT, ENGINE_INTERNALS_ALLOW_LIST))
                .as("classes that no longer use BayeuxServerImpl or ServerMessageImpl: remove them from "
                        + "ArchitectureRules.ENGINE_INTERNALS_ALLOW_LIST")
                .isEmpty();
    }

    @ArchTest
    static void packageCycleAllowListHasNoStaleEntry(JavaClasses classes) {
        assertThat(ArchitectureRules.stalePackageCycleEntries(classes, PACKAGE_CYCLE_ALLOW_LIST))
                .as("dependencies that no longer exist: remove them from ArchitectureRules.PACKAGE_CYCLE_ALLOW_LIST")
                .isEmpty();
    }

    @ArchTest
    static void everyModuleIsImported(JavaClasses classes) {
        // A rule over packages that were not imported would pass without checking anything.
        for (String anyClassOfEachModule : new String[] {
                "org.bayeux.api.Message", "org.bayeux.json.jackson.JacksonJsonCodec",
                "org.bayeux.json.jetty.JettyJsonCodec",
                "org.bayeux.websocket.text.TextMessageAssembler", "org.bayeux.server.BayeuxServerImpl",
                "org.bayeux.transport.http.HttpTransport", "org.bayeux.transport.jetty.BayeuxHandler",
                "org.bayeux.transport.servlet.BayeuxServlet", "org.bayeux.standalone.StandaloneServer",
                "org.bayeux.client.BayeuxClient", "org.bayeux.load.LoadMain",
                "org.bayeux.backplane.redis.RedisBackplane",
                "org.bayeux.reference.cometd.CometDReferenceServer", "org.bayeux.testsupport.PausableProxy",
                "org.bayeux.oort.Oort", "org.bayeux.metrics.BayeuxMetrics",
                "org.bayeux.demo.chat.ChatService"}) {
            assertThat(classes.contain(anyClassOfEachModule)).as(anyClassOfEachModule).isTrue();
        }
    }
}
