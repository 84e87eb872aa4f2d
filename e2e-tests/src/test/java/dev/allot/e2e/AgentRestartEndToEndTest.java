package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A node agent killed with SIGKILL under the whole system (real services, real processes), and started again on
 * its state dir as an operator would: back before the scheduler's {@code lost-after} (30 s) its running job is
 * not lost, runs on and completes once; back after it, the scheduler has declared the job lost and requeued it,
 * and the returning agent fences the old process (reported once, stopped) under a new epoch.
 */
@AllotInfra
class AgentRestartEndToEndTest {

    static final Duration PATIENCE = Duration.ofMinutes(3);

    @Test
    void givenARunningJob_whenItsAgentIsKilledAndBack_thenWithinLostAfterItRunsOnAndAfterItIsLostAndFenced(
            AllotInfrastructure infra) throws Exception {
        String cluster = "restart-" + UUID.randomUUID().toString().substring(0, 6);
        String lab = "lab" + cluster.substring(8);
        Path shared = Files.createTempDirectory("allot-e2e-go", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        Path go = shared.resolve("go");
        ServiceProcess agent = null;
        try (AllotSystem system = AllotSystem.start(infra, cluster, 2, 2);
             Tail<JobEvent> events = new Tail<>(infra, Topics.JOB_EVENTS);
             Tail<NodeStatus> status = new Tail<>(infra, Topics.NODE_STATUS)) {
            await().atMost(PATIENCE).ignoreExceptions().until(() -> system.api.putBudget(lab, 1).status(),
                    s -> s >= 200 && s <= 204);
            assertThat(system.api.putBudget(lab + "/team", 1).status()).isBetween(200, 204);

            // 1. Back within lost-after: the job runs on, and completes once.
            String kept = system.api.submit(job(lab, cluster, List.of("sh", "-c",
                    "while [ ! -e '" + go + "' ]; do sleep 0.2; done")));
            long keptPid = startedPid(events, kept);
            String node = nodeOf(events, kept);
            long epoch = epochs(status, node).get(0);
            system.agent.kill();
            long killedAt = System.nanoTime();
            agent = restartAgent(system, infra);
            long backMillis = (System.nanoTime() - killedAt) / 1_000_000;
            System.out.printf("agent killed and back (ready) in %d ms (load %s)%n", backMillis, load());
            await().atMost(PATIENCE).until(() -> epochs(status, node).size() == 2);
            assertThat(epochs(status, node)).containsExactly(epoch, epoch);
            assertThat(ProcessHandle.of(keptPid).map(ProcessHandle::isAlive).orElse(false)).isTrue();
            Files.createFile(go);
            await().atMost(PATIENCE).until(() -> system.api.state(kept), "COMPLETED"::equals);
            assertThat(payloads(events, kept, JobLost.class)).isEmpty();
            assertThat(payloads(events, kept, JobPlaced.class)).hasSize(1);
            // its start reported again by the agent that took it over, under the same event id (the first may die in a
            // killed agent's buffer): one start in the budget-service's view of the job
            List<JobEvent> starts = events.values(r -> kept.equals(r.key()) && r.value().getPayload() instanceof JobStarted);
            assertThat(starts).hasSize(2);
            assertThat(starts).extracting(JobEvent::getEventId).containsOnly(starts.get(0).getEventId());
            assertThat(system.api.history(kept).get("events").findValuesAsText("type")).containsOnlyOnce("JobStarted");
            assertThat(payloads(events, kept, JobCompleted.class)).hasSize(1);
            assertThat(payloads(events, kept, JobExited.class)).singleElement().satisfies(e -> {
                assertThat(e.getExitCode()).isZero();
                assertThat(e.getStopped()).isFalse();
            });

            // 2. Back after lost-after: the scheduler has declared the job lost; the old process is fenced.
            String lost = system.api.submit(job(lab, cluster, List.of("sleep", "600")));
            long lostPid = startedPid(events, lost);
            String lostNode = nodeOf(events, lost);
            long before = epochs(status, lostNode).get(epochs(status, lostNode).size() - 1);
            agent.kill();
            await().atMost(PATIENCE).until(() -> !payloads(events, lost, JobLost.class).isEmpty());
            agent = restartAgent(system, infra);
            await().atMost(PATIENCE).until(() -> epochs(status, lostNode).get(epochs(status, lostNode).size() - 1) > before);
            await().atMost(PATIENCE).until(() -> ProcessHandle.of(lostPid).map(p -> !p.isAlive()).orElse(true));
            await().atMost(PATIENCE).until(() -> payloads(events, lost, JobPlaced.class).size() == 2);
            await().atMost(PATIENCE).until(() -> payloads(events, lost, JobExited.class).size() == 1);
            assertThat(payloads(events, lost, JobExited.class).get(0)).satisfies(e -> {
                assertThat(e.getExitCode()).isIn(143, 137);
                assertThat(e.getStopped()).isTrue();
            });
            assertThat(payloads(events, lost, JobLost.class)).hasSize(1);
        } finally {
            if (agent != null) {
                agent.close();
            }
        }
    }

    private static Map<String, Object> job(String lab, String cluster, List<String> command) {
        return Map.of("budget", lab + "/team", "cluster", cluster, "replicas", 1, "gpusPerReplica", 1,
                "minRuntimeSeconds", 60, "resumable", false, "command", command);
    }

    /** The agent as AllotSystem starts it, on the same state dir (readopt-within 25 s); ready. */
    private static ServiceProcess restartAgent(AllotSystem system, AllotInfrastructure infra) throws Exception {
        return ServiceProcess.of("node-agent", infra.bootstrapServers(), infra.registryUrl(),
                system.stateDir.resolve("agent"), Map.of(
                        "allot.agent.cluster", system.cluster,
                        "allot.agent.fake-nodes", "2",
                        "allot.agent.gpus-per-node", "2",
                        "allot.agent.state-dir", system.stateDir.resolve("agent").toString(),
                        "allot.agent.heartbeat-interval", "1s",
                        "allot.agent.usage-interval", "1s",
                        // a Quarkus start on a loaded machine takes seconds: room below the scheduler's 30 s
                        "allot.agent.readopt-within", "25s"), infra.security("node-agent"))
                .start().awaitReady(PATIENCE);
    }

    private static long startedPid(Tail<JobEvent> events, String job) {
        await().atMost(PATIENCE).until(() -> !payloads(events, job, JobStarted.class).isEmpty());
        return payloads(events, job, JobStarted.class).get(0).getPid();
    }

    private static String nodeOf(Tail<JobEvent> events, String job) {
        return payloads(events, job, JobStarted.class).get(0).getNodeId();
    }

    private static List<Long> epochs(Tail<NodeStatus> status, String node) {
        return status.values(r -> node.equals(r.key()) && r.value().getPayload() instanceof NodeRegistered).stream()
                .map(s -> ((NodeRegistered) s.getPayload()).getEpoch()).toList();
    }

    private static <T> List<T> payloads(Tail<JobEvent> events, String job, Class<T> type) {
        return events.values(r -> job.equals(r.key()) && type.isInstance(r.value().getPayload())).stream()
                .map(e -> type.cast(e.getPayload())).toList();
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
