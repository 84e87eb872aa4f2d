package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.chaos.ChaosReport;
import dev.allot.chaos.ChaosVerdict;
import dev.allot.chaos.LogReader;
import dev.allot.chaos.Recovery;
import dev.allot.chaos.SubmissionStream;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfrastructure;
import dev.allot.testsupport.Tail;
import dev.allot.testsupport.TestTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The bounded form of {@code bin/allot chaos}: under a stream of submissions for three teams, each component is
 * killed once with SIGKILL and started again on its state as an operator would (the active scheduler, the standby,
 * the accounting-service, the budget-service, the node agent, the broker: a process of its own with its KRaft
 * controller in another, as {@code bin/allot} runs them, started again once the controller fenced it, as
 * {@code bin/allot chaos} keeps it down longer than its session).
 * Then, from the log alone: no
 * acknowledged submission lost, none stuck, no wrong verdict, no GPU-second double-booked by the scheduler or shared
 * by two processes, usage sums exact. Recovery seconds are printed, not asserted.
 *
 * <p>Between two kills the test waits until the system completed another job since the last restart (the stream
 * and the scheduling go on), not for a fixed time.
 */
class ChaosEndToEndTest {

    static final Duration PATIENCE = Duration.ofMinutes(3);

    @Test
    void givenAStreamOfSubmissions_whenEachComponentIsKilledAndRestarted_thenTheLogShowsNothingLostStuckOrDoubleBooked()
            throws Exception {
        long began = System.nanoTime();
        String cluster = "chaos-" + UUID.randomUUID().toString().substring(0, 6);
        List<Recovery> recoveries = new ArrayList<>();
        try (RestartableInfrastructure infra = RestartableInfrastructure.startWithBrokerProcesses();
             BrokerLogs brokerLogs = new BrokerLogs(infra);
             AllotSystem system = AllotSystem.start(infra.bootstrapServers(), infra.registryUrl(),
                     user -> KafkaSecurity.PLAINTEXT, cluster, 3, 4);
             Tail<JobEvent> events = new Tail<>(infra.clients(), Topics.JOB_EVENTS)) {
            system.startStandbyScheduler();
            await().atMost(PATIENCE).ignoreExceptions().until(() -> system.api.putBudget("chaos", 1).status(),
                    s -> s >= 200 && s <= 204);
            List<String> teams = List.of("chaos/team-1", "chaos/team-2", "chaos/team-3");
            for (String team : teams) {
                assertThat(system.api.putBudget(team, 1).status()).isBetween(200, 204);
            }
            Instant since = Instant.now();
            SubmissionStream stream = new SubmissionStream(system.budget.url(), TestTokens.admin(), cluster, teams, 2,
                    14, id -> { });
            Thread submitter = new Thread(stream, "chaos-submit");
            submitter.start();
            try {
                awaitAnotherCompletion(events, 0);
                recoveries.add(killAndRestart("scheduler-active", events, () -> {
                    ServiceProcess active = activeScheduler(system);
                    return restart(active, s -> { if (system.scheduler == active) { system.scheduler = s; } else { system.standby = s; } });
                }));
                recoveries.add(killAndRestart("scheduler-standby", events, () -> {
                    ServiceProcess standby = activeScheduler(system) == system.scheduler ? system.standby : system.scheduler;
                    return restart(standby, s -> { if (system.scheduler == standby) { system.scheduler = s; } else { system.standby = s; } });
                }));
                recoveries.add(killAndRestart("accounting-service", events,
                        () -> restart(system.accounting, s -> system.accounting = s)));
                // static membership: the restarted instance holds its place in the group under its own id (its
                // stream thread's), rather than joining as a new member that waits out the dead one's session
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                        infra.clients().adminConfig())) {
                    String group = "allot-accounting-" + cluster;
                    assertThat(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().members())
                            .extracting(m -> m.groupInstanceId().orElse("(dynamic)"))
                            .containsExactly(cluster + "-0-1");
                }
                recoveries.add(killAndRestart("budget-service", events,
                        () -> restart(system.budget, s -> system.budget = s)));
                recoveries.add(killAndRestart("node-agent", events,
                        () -> restart(system.agent, s -> system.agent = s)));
                recoveries.add(killAndRestart("kafka", events, () -> {
                    long killed = System.currentTimeMillis();
                    infra.killBroker();
                    long restarted = System.currentTimeMillis();
                    infra.startBroker();
                    return new long[] {killed, restarted, System.currentTimeMillis()};
                }));
            } finally {
                stream.stop();
                submitter.join();
            }
            LogReader log = new LogReader(infra.clients());
            ChaosReport[] report = new ChaosReport[1];
            try {
                await().atMost(PATIENCE).pollInterval(Duration.ofSeconds(2)).until(() -> {
                    report[0] = ChaosVerdict.judge(log.read(), since, stream.acknowledged(), recoveries);
                    return report[0].stuck().isEmpty() && report[0].usageMismatches().isEmpty();
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // what did not settle, and where each service stood (their logs and the broker's: e2e-tests/target/e2e-logs)
                if (report[0] != null) {
                    report[0].print(System.out);
                }
                for (ServiceProcess service : java.util.Arrays.asList(system.scheduler, system.standby,
                        system.accounting)) {
                    if (service != null) {
                        System.out.println("chaos test, not settled: " + service.url() + " " + health(service));
                    }
                }
                throw e;
            }
            report[0].print(System.out);
            System.out.printf("chaos test: %d s in all, %d submissions refused while components were down (load %s)%n",
                    (System.nanoTime() - began) / 1_000_000_000L, stream.refused(), load());

            ChaosReport r = report[0];
            assertThat(r.acknowledged()).isPositive();
            assertThat(r.completed()).isPositive();
            assertThat(r.failed()).as("the stream's exit-3 jobs fail").isPositive();
            assertThat(r.lost()).isEmpty();
            assertThat(r.stuck()).isEmpty();
            assertThat(r.wrongVerdicts()).isEmpty();
            assertThat(r.doubleBooked()).isEmpty();
            assertThat(r.shared()).isEmpty();
            assertThat(r.usageMismatches()).isEmpty();
            assertThat(r.usageReported()).isPositive();
        }
    }

    /** A kill and a restart: {killed, restarted, ready} in epoch millis. */
    interface Crash {
        long[] run() throws Exception;
    }

    private Recovery killAndRestart(String component, Tail<JobEvent> events, Crash crash) throws Exception {
        int completedBefore = completions(events);
        long[] t = crash.run();
        Recovery recovery = new Recovery(component, t[0], t[1], t[2]);
        System.out.printf("chaos test: %s serving again %.1f s after the kill (load %s)%n", component,
                recovery.seconds(), load());
        awaitAnotherCompletion(events, completedBefore);
        return recovery;
    }

    /** SIGKILL, then the same service started again on its port and state; ready. */
    private static long[] restart(ServiceProcess victim, java.util.function.Consumer<ServiceProcess> replace)
            throws Exception {
        long killed = System.currentTimeMillis();
        victim.kill();
        long restarted = System.currentTimeMillis();
        ServiceProcess again = victim.again().start();
        replace.accept(again);
        again.awaitReady(PATIENCE);
        return new long[] {killed, restarted, System.currentTimeMillis()};
    }

    private static ServiceProcess activeScheduler(AllotSystem system) {
        ServiceProcess[] active = new ServiceProcess[1];
        await().atMost(PATIENCE).ignoreExceptions().until(() -> {
            for (ServiceProcess s : List.of(system.scheduler, system.standby)) {
                String role = system.api.json(s.url() + "/q/health/ready").toString();
                if (!role.contains("\"standby\"")) {
                    active[0] = s;
                    return true;
                }
            }
            return false;
        });
        return active[0];
    }

    private static void awaitAnotherCompletion(Tail<JobEvent> events, int before) {
        await().atMost(PATIENCE).until(() -> completions(events) > before);
    }

    private static int completions(Tail<JobEvent> events) {
        return events.values(r -> r.value().getPayload() instanceof JobCompleted).size();
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** A service's /q/health answer, whatever its status code. */
    private static String health(ServiceProcess service) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(service.url() + "/q/health")).timeout(Duration.ofSeconds(5)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body().replaceAll("\\s+", " ");
        } catch (Exception e) {
            return "no answer: " + e;
        }
    }

    /** At the end, the broker's and its controller's output next to the services' logs (e2e-tests/target/e2e-logs). */
    private record BrokerLogs(RestartableInfrastructure infra) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            java.nio.file.Path logs = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target/e2e-logs"));
            for (String name : List.of("kafka.log", "controller.log")) {
                java.nio.file.Path log = infra.brokerLogDir().resolve(name);
                if (java.nio.file.Files.exists(log)) {
                    java.nio.file.Files.copy(log, logs.resolve("chaos-" + name),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
