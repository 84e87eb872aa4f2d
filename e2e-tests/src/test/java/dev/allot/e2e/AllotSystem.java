package dev.allot.e2e;

import dev.allot.edge.security.KafkaSecurity;
import dev.allot.testsupport.AllotInfrastructure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The whole system for one cluster, as real processes: budget-service, accounting-service,
 * scheduler-service and a node agent hosting fake GPU nodes (none when {@code nodes} is 0), on the test JVM's broker
 * and registry. On a secured broker each service authenticates as its own principal (the principals are named as the
 * modules).
 */
final class AllotSystem implements AutoCloseable {

    final String cluster;
    ServiceProcess budget;
    ServiceProcess accounting;
    ServiceProcess scheduler;
    /** A second scheduler instance, standing by; null unless {@link #startStandbyScheduler()}. */
    ServiceProcess standby;
    ServiceProcess agent;
    final AllotApi api;
    final Path stateDir;
    private final String bootstrap;
    private final String registry;
    private final Function<String, KafkaSecurity> security;
    private final Map<String, String> schedulerProperties;

    private AllotSystem(String bootstrap, String registry, Function<String, KafkaSecurity> security, String cluster,
                        int nodes, int gpusPerNode, Map<String, String> schedulerSettings) throws IOException {
        this.bootstrap = bootstrap;
        this.registry = registry;
        this.security = security;
        this.cluster = cluster;
        this.stateDir = Files.createTempDirectory("allot-e2e-" + cluster);
        // a root agent runs jobs as nobody, who must pass through to their checkpoint and work dirs
        Files.setPosixFilePermissions(stateDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        budget = ServiceProcess.of("budget-service", bootstrap, registry, stateDir.resolve("budget"), Map.of(
                "kafka.group.id", "budget-" + cluster), security.apply("budget-service"));
        accounting = ServiceProcess.accounting(bootstrap, registry, stateDir.resolve("accounting"), cluster, 0, 200,
                Map.of("allot.accounting.publish-interval", "1s", "allot.accounting.metrics-interval", "1s"),
                security.apply("accounting-service"));
        schedulerProperties = new HashMap<>(schedulerSettings != null ? schedulerSettings : Map.of(
                "allot.scheduler.tick", "250ms",
                "allot.scheduler.demand-interval", "5s",
                "allot.scheduler.estimate-interval", "1s",
                // every decision committed and retaken on replay, one line each (compare a crash's two logs)
                "quarkus.log.category.\"dev.allot.scheduler\".level", "DEBUG"));
        schedulerProperties.put("allot.scheduler.cluster", cluster);
        scheduler = ServiceProcess.of("scheduler-service", bootstrap, registry, stateDir.resolve("scheduler"),
                schedulerProperties, security.apply("scheduler-service"));
        agent = nodes == 0 ? null : ServiceProcess.of("node-agent", bootstrap, registry, stateDir.resolve("agent"), Map.of(
                "allot.agent.cluster", cluster,
                "allot.agent.fake-nodes", String.valueOf(nodes),
                "allot.agent.gpus-per-node", String.valueOf(gpusPerNode),
                "allot.agent.state-dir", stateDir.resolve("agent").toString(),
                "allot.agent.heartbeat-interval", "1s",
                "allot.agent.usage-interval", "1s"), security.apply("node-agent"));
        api = new AllotApi(budget.url());
    }

    static AllotSystem start(AllotInfrastructure infra, String cluster, int nodes, int gpusPerNode) throws Exception {
        return start(infra.bootstrapServers(), infra.registryUrl(), infra::security, cluster, nodes, gpusPerNode, null);
    }

    /**
     * With the scheduler's own settings instead of the tests' (estimates every second, a demand interval of 5 s, DEBUG
     * decisions): {@code schedulerSettings} are all it is given besides its cluster (the scale benchmark's).
     */
    static AllotSystem start(AllotInfrastructure infra, String cluster, int nodes, int gpusPerNode,
                             Map<String, String> schedulerSettings) throws Exception {
        return start(infra.bootstrapServers(), infra.registryUrl(), infra::security, cluster, nodes, gpusPerNode,
                Map.copyOf(schedulerSettings));
    }

    /** On a broker and registry of the test's own (e.g. one it stops and starts again); each service's Kafka principal from {@code security}. */
    static AllotSystem start(String bootstrap, String registry, Function<String, KafkaSecurity> security, String cluster,
                             int nodes, int gpusPerNode) throws Exception {
        return start(bootstrap, registry, security, cluster, nodes, gpusPerNode, null);
    }

    private static AllotSystem start(String bootstrap, String registry, Function<String, KafkaSecurity> security,
                                     String cluster, int nodes, int gpusPerNode, Map<String, String> schedulerSettings)
            throws Exception {
        AllotSystem system = new AllotSystem(bootstrap, registry, security, cluster, nodes, gpusPerNode,
                schedulerSettings);
        List<ServiceProcess> all = java.util.stream.Stream.of(system.budget, system.accounting, system.scheduler,
                system.agent).filter(java.util.Objects::nonNull).toList();
        for (ServiceProcess service : all) {
            service.start();
        }
        // Start in parallel, then wait for each: the machine has two cores.
        try {
            CompletableFuture.allOf(all.stream()
                    .map(s -> CompletableFuture.runAsync(() -> s.awaitReady(Duration.ofMinutes(3))))
                    .toArray(CompletableFuture[]::new)).join();
            // the budget-service refuses jobs for a cluster it knows no node of: wait for the agent's registrations
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(1))
                    .until(() -> system.api.budgets().path("clusters").has(cluster));
        } catch (RuntimeException e) {
            system.close(); // a service that never became ready must not outlive the test JVM's failure
            throw e;
        }
        return system;
    }

    /** Crashes the scheduler (SIGKILL) and starts a new one on the same log. */
    void crashAndRestartScheduler() throws Exception {
        scheduler.kill();
        scheduler = ServiceProcess.of("scheduler-service", bootstrap, registry,
                stateDir.resolve("scheduler"), schedulerProperties, security.apply("scheduler-service")).start()
                .awaitReady(Duration.ofMinutes(2));
    }

    /** Starts a second scheduler instance for the cluster (state dir of its own): it stands by while the first is active. */
    void startStandbyScheduler() throws Exception {
        standby = ServiceProcess.of("scheduler-service", bootstrap, registry, stateDir.resolve("scheduler-2"),
                schedulerProperties, security.apply("scheduler-service")).start().awaitReady(Duration.ofMinutes(2));
    }

    @Override
    public void close() throws Exception {
        for (ServiceProcess service : java.util.Arrays.asList(agent, standby, scheduler, accounting, budget)) {
            if (service != null) {
                service.close();
            }
        }
    }
}
