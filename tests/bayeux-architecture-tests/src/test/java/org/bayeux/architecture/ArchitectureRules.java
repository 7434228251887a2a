package org.bayeux.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceRule;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The architecture rules. Each is built for a root package, so that the same rule checks our classes (root
 * {@value #ROOT}, in {@link ArchitectureTest}) and a deliberately bad copy of our layout (in
 * {@link RulesCatchViolationsTest}), which shows that the rule fails when it should.
 *
 * <p>Allow-lists name what breaks a rule today and may not grow: a class or a dependency not on them fails the
 * rule, and an entry that no longer breaks it fails {@link #staleEngineInternalsEntries} or
 * {@link #stalePackageCycleEntries} until it is removed, so each list only shrinks.</p>
 */
final class ArchitectureRules {
    /** Our classes' root package. */
    static final String ROOT = "org.bayeux";

    /**
     * Classes outside the engine allowed to use its internals ({@code BayeuxServerImpl}, {@code ServerMessageImpl}),
     * by import or by calling methods of an engine they get from another class: none since the transport SPI landed
     * (issue 18 item 1). Kept, empty, so that an exception is one visible line if one is ever argued for.
     */
    static final Set<String> ENGINE_INTERNALS_ALLOW_LIST = Set.of();

    /**
     * The dependencies that close the package cycles there are today, each from a class (or every class of a
     * package) to a class: {@code org.bayeux.client.transport} uses {@code ClientResources} of the package that uses
     * it. The engine's and the transports' packages have none ({@code Cors} no longer asks the WebSocket package for
     * its origin rule). Delete a line once its dependency is gone (the stale-entry check names it).
     */
    static final List<AllowedDependency> PACKAGE_CYCLE_ALLOW_LIST = List.of(
            new AllowedDependency("org.bayeux.client.transport", "org.bayeux.client.ClientResources"));

    /**
     * A dependency that a rule lets pass.
     *
     * @param from a class (with its nested classes) or a package (its classes, not its sub-packages)
     * @param to a class (with its nested classes)
     */
    record AllowedDependency(String from, String to) {
        boolean matches(Dependency dependency) {
            JavaClass origin = dependency.getOriginClass();
            return (isOrNests(origin, from) || origin.getPackageName().equals(from))
                    && isOrNests(dependency.getTargetClass(), to);
        }

        @Override
        public String toString() {
            return from + " -> " + to;
        }
    }

    private ArchitectureRules() {
    }

    /** The API depends on nothing of ours: everything else depends on it. */
    static ArchRule apiDependsOnNothingOfOurs(String root) {
        return noClasses().that().resideInAPackage(root + ".api..")
                .should().dependOnClassesThat(ours(root).and(not(resideInAPackage(root + ".api.."))))
                .because("the API is the bottom of the module plan");
    }

    /** The engine knows nothing of what is built on it: no transport, client, standalone server or load tool. */
    static ArchRule engineDependsOnNothingBuiltOnIt(String root) {
        return noClasses().that().resideInAPackage(root + ".server..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".transport..", root + ".client..",
                        root + ".standalone..", root + ".load..", root + ".metrics..")
                .because("transports, clients, tools and the metrics binding depend on the engine, never the other way "
                        + "(the engine keeps plain totals; bayeux-metrics reads them)");
    }

    /** Transports know no client, cluster module, load tool or application built on them. */
    static ArchRule transportsDependOnNoClientOrTool(String root) {
        return noClasses().that().resideInAPackage(root + ".transport..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".client..", root + ".load..",
                        root + ".standalone..", root + ".metrics..", root + ".oort..", root + ".backplane..")
                .because("a transport serves any client, sits below the cluster modules and is what the "
                        + "applications are built on");
    }

    /**
     * The Java client depends on the API and the shared WebSocket text helpers only (its codec is found at run time),
     * so it talks to any Bayeux server and carries no server code.
     */
    static ArchRule clientDependsOnlyOnApi(String root) {
        return noClasses().that().resideInAPackage(root + ".client..")
                .should().dependOnClassesThat(ours(root).and(not(resideInAnyPackage(
                        root + ".api..", root + ".client..", root + ".websocket.text.."))))
                .because("the client is a separate product: the API, Jetty's clients and a codec found at run time");
    }

    /**
     * Oort ({@code oort}) is built on the API, the engine's cluster SPI, its configuration types and
     * {@code BayeuxEngine}, and our Java client for its links: nothing else of the engine, no transport.
     */
    static ArchRule oortUsesOnlyApiClusterSpiEngineAndClient(String root) {
        return noClasses().that().resideInAPackage(root + ".oort..")
                .should().dependOnClassesThat(ours(root)
                        .and(not(resideInAnyPackage(root + ".api..", root + ".server.cluster..", root + ".client..",
                                root + ".server.config..", root + ".oort..")))
                        .and(not(DescribedPredicate.describe("BayeuxEngine",
                                c -> c.getName().equals(root + ".server.BayeuxEngine")))))
                .because("a cluster reaches the engine through its SPI only (issue 19)");
    }

    /**
     * Nothing of ours but the standalone server depends on a cluster module (Oort, a backplane): applications and
     * tests choose one, and an application that needs to know who is here asks the cluster SPI's presence seam, which
     * every cluster and a single node implement (the demo chat does).
     */
    static ArchRule onlyTheServerUsesAClusterModule(String root) {
        return noClasses().that().resideOutsideOfPackages(root + ".oort..", root + ".backplane..",
                        root + ".standalone..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".oort..", root + ".backplane..")
                .because("a cluster is an add-on that applications choose, behind the cluster SPI");
    }

    /**
     * A cluster module ({@code backplane..}, e.g. the Redis backplane) builds on the engine's cluster SPI, its
     * configuration types and {@code BayeuxEngine} only, beside the API and the Java client (for links).
     */
    static ArchRule backplanesUseOnlyTheClusterSpi(String root) {
        return noClasses().that().resideInAPackage(root + ".backplane..")
                .should().dependOnClassesThat(ours(root).and(not(resideInAnyPackage(root + ".api..",
                        root + ".client..", root + ".backplane..", root + ".server.cluster..",
                        root + ".server.config..")))
                        .and(not(DescribedPredicate.describe("are BayeuxEngine",
                                (JavaClass c) -> c.getName().equals(root + ".server.BayeuxEngine")))))
                .because("a cluster joins engines through the cluster SPI (issue 18), never their internals");
    }

    /**
     * No class outside the engine uses {@code BayeuxServerImpl} or {@code ServerMessageImpl}, except the classes of
     * {@code allowList} (and their nested classes).
     */
    static ArchRule noEngineInternalsOutsideEngine(String root, Set<String> allowList) {
        return noClasses().that().resideOutsideOfPackage(root + ".server..")
                .and(not(inAllowList(allowList)))
                .should().dependOnClassesThat(engineInternals(root))
                .because("transports reach the engine through its SPI (issue 18 item 1); allow-listed today: "
                        + allowList.size() + " classes");
    }

    /**
     * No part holds the facade that built it: in the facade's package, no class but the facade (with its nested
     * classes) and the classes of {@code builtOnIt} depends on it (its nested types, such as a builder or a listener
     * interface, may be used). {@code builtOnIt} names what applications build on
     * the facade (Oort's Seti, replicated objects and services take the node they run on), not its parts.
     */
    static ArchRule partsDoNotHoldTheirFacade(String facade, Set<String> builtOnIt) {
        String packageName = facade.substring(0, facade.lastIndexOf('.'));
        return noClasses().that().resideInAPackage(packageName)
                .and(not(inAllowList(Set.of(facade))))
                .and(not(inAllowList(builtOnIt)))
                .should(new ArchCondition<JavaClass>("hold, take or call " + facade) {
                    @Override
                    public void check(JavaClass type, ConditionEvents events) {
                        for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                            // Naming the facade's class for a logger's category is no hold on it.
                            if (dependency.getTargetClass().getName().equals(facade)
                                    && !dependency.getDescription().contains("references class object")) {
                                events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                            }
                        }
                    }
                })
                .because("parts get their collaborators through constructors, as the engine's do (issue 32)");
    }

    /** Allow-list entries whose class is gone or no longer uses the engine's internals. */
    static List<String> staleEngineInternalsEntries(JavaClasses classes, String root, Set<String> allowList) {
        DescribedPredicate<JavaClass> internals = engineInternals(root);
        List<String> stale = new ArrayList<>();
        for (String name : allowList) {
            boolean uses = classes.stream()
                    .filter(c -> isOrNests(c, name))
                    .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                    .anyMatch(d -> internals.test(d.getTargetClass()));
            if (!uses) {
                stale.add(name);
            }
        }
        return stale;
    }

    /** No cycle between the top-level packages under the root ({@code api}, {@code server}, {@code transport}, ...). */
    static ArchRule noCyclesBetweenTopLevelPackages(String root) {
        return slices().matching(root + ".(*)..").should().beFreeOfCycles();
    }

    /**
     * No cycle between any two packages under the root, each package a slice of its own (the engine's
     * sub-packages included), except through the dependencies of {@code allowList}.
     */
    static ArchRule noCyclesBetweenPackages(String root, Collection<AllowedDependency> allowList) {
        SliceRule rule = slices().matching(root + ".(**)").should().beFreeOfCycles();
        for (AllowedDependency allowed : allowList) {
            rule = rule.ignoreDependency(
                    DescribedPredicate.describe(allowed.from(), c -> isOrNests(c, allowed.from())
                            || c.getPackageName().equals(allowed.from())),
                    DescribedPredicate.describe(allowed.to(), c -> isOrNests(c, allowed.to())));
        }
        return rule;
    }

    /** Allow-list entries whose dependency no longer exists. */
    static List<AllowedDependency> stalePackageCycleEntries(JavaClasses classes,
            Collection<AllowedDependency> allowList) {
        List<AllowedDependency> stale = new ArrayList<>();
        for (AllowedDependency allowed : allowList) {
            boolean exists = classes.stream()
                    .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                    .anyMatch(allowed::matches);
            if (!exists) {
                stale.add(allowed);
            }
        }
        return stale;
    }

    private static DescribedPredicate<JavaClass> ours(String root) {
        return resideInAPackage(root + "..");
    }

    private static DescribedPredicate<JavaClass> engineInternals(String root) {
        Set<String> names = Set.of(root + ".server.BayeuxServerImpl", root + ".server.ServerMessageImpl");
        return DescribedPredicate.describe("are " + names, c -> names.stream().anyMatch(n -> isOrNests(c, n)));
    }

    private static DescribedPredicate<JavaClass> inAllowList(Set<String> allowList) {
        return DescribedPredicate.describe("are allow-listed",
                c -> allowList.stream().anyMatch(n -> isOrNests(c, n)));
    }

    /** Whether the class is the named one or nested in it (its anonymous and inner classes belong to it). */
    private static boolean isOrNests(JavaClass type, String className) {
        String name = type.getName();
        return name.equals(className) || name.startsWith(className + "$");
    }
}
