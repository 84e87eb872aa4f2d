package dev.allot.e2e;

import dev.allot.testsupport.AllotInfrastructure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The whole system for one cluster, as real processes: budget-service, accounting-service,
 * scheduler-service and a node agent hosting fake GPU nodes, on the test JVM's broker and registry. On a
 * secured broker each service authenticates as its own principal (the principals are named as the modules).
 */
final class AllotSystem implements AutoCloseable {

    final String cluster;
    final ServiceProcess budget;
    final ServiceProcess accounting;
    ServiceProcess scheduler;
    final ServiceProcess agent;
    final AllotApi api;
    final Path stateDir;
    private final AllotInfrastructure infra;
    private final Map<String, String> schedulerProperties;

    private AllotSystem(AllotInfrastructure infra, String cluster, int nodes, int gpusPerNode) throws IOException {
        this.infra = infra;
        this.cluster = cluster;
        this.stateDir = Files.createTempDirectory("allot-e2e-" + cluster);
        // a root agent runs jobs as nobody, who must pass through to their checkpoint and work dirs
        Files.setPosixFilePermissions(stateDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        String bootstrap = infra.bootstrapServers();
        String registry = infra.registryUrl();
        budget = ServiceProcess.of("budget-service", bootstrap, registry, stateDir.resolve("budget"), Map.of(
                "kafka.group.id", "budget-" + cluster), infra.security("budget-service"));
        accounting = ServiceProcess.of("accounting-service", bootstrap, registry, stateDir.resolve("accounting"), Map.of(
                "quarkus.kafka-streams.application-id", "allot-accounting-" + cluster,
                "kafka-streams.state.dir", stateDir.resolve("accounting/streams").toString(),
                "kafka-streams.commit.interval.ms", "200",
                "allot.accounting.publish-interval", "1s",
                "allot.accounting.metrics-interval", "1s"), infra.security("accounting-service"));
        schedulerProperties = new HashMap<>(Map.of(
                "allot.scheduler.cluster", cluster,
                "allot.scheduler.tick", "250ms",
                "allot.scheduler.demand-interval", "5s",
                "allot.scheduler.estimate-interval", "1s",
                // every decision committed and retaken on replay, one line each (compare a crash's two logs)
                "quarkus.log.category.\"dev.allot.scheduler\".level", "DEBUG"));
        scheduler = ServiceProcess.of("scheduler-service", bootstrap, registry, stateDir.resolve("scheduler"),
                schedulerProperties, infra.security("scheduler-service"));
        agent = ServiceProcess.of("node-agent", bootstrap, registry, stateDir.resolve("agent"), Map.of(
                "allot.agent.cluster", cluster,
                "allot.agent.fake-nodes", String.valueOf(nodes),
                "allot.agent.gpus-per-node", String.valueOf(gpusPerNode),
                "allot.agent.state-dir", stateDir.resolve("agent").toString(),
                "allot.agent.heartbeat-interval", "1s",
                "allot.agent.usage-interval", "1s"), infra.security("node-agent"));
        api = new AllotApi(budget.url());
    }

    static AllotSystem start(AllotInfrastructure infra, String cluster, int nodes, int gpusPerNode) throws Exception {
        AllotSystem system = new AllotSystem(infra, cluster, nodes, gpusPerNode);
        List<ServiceProcess> all = List.of(system.budget, system.accounting, system.scheduler, system.agent);
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
        scheduler = ServiceProcess.of("scheduler-service", infra.bootstrapServers(), infra.registryUrl(),
                stateDir.resolve("scheduler"), schedulerProperties, infra.security("scheduler-service")).start()
                .awaitReady(Duration.ofMinutes(2));
    }

    @Override
    public void close() throws Exception {
        for (ServiceProcess service : List.of(agent, scheduler, accounting, budget)) {
            service.close();
        }
    }
}
