package dev.allot.nodeagent;

import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * An agent in its own JVM, for tests that kill it for real (SIGKILL): it hosts node {@code n1} under the
 * given epoch, starts one job replica per {@code jobId=command} argument (run with {@code sh -c}), prints
 * {@code started <jobId> <pid>} for each and waits to be killed.
 *
 * <p>Arguments: state dir, epoch, then {@code jobId=shell command} pairs.
 */
public final class CrashingAgentMain {

    public static void main(String[] args) throws Exception {
        StateDir state = new StateDir(Path.of(args[0]));
        long epoch = Long.parseLong(args[1]);
        RecordingReports reports = new RecordingReports();
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(8), epoch)), state,
                reports, new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC(),
                Executors.newScheduledThreadPool(1), "crashing");
        int gpu = 0;
        for (String job : Arrays.copyOfRange(args, 2, args.length)) {
            String jobId = job.substring(0, job.indexOf('='));
            agent.handle(NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                    .setPayload(StartJob.newBuilder().setJobId(jobId).setNodeId("n1").setNodeEpoch(epoch)
                            .setReplicaIndex(0).setReplicas(1).setGpuIndices(List.of(gpu++))
                            .setCommand(List.of("sh", "-c", job.substring(job.indexOf('=') + 1))).setEnv(Map.of())
                            .setRestartCount(0).setBudget("lab/team-a").setCluster("test")
                            .setChargeMode(ChargeMode.ALLOCATED).build())
                    .build());
        }
        agent.reportUsage(); // the ledger remembers how far usage was reported
        for (RecordingReports.Report r : reports.jobEvents) {
            if (r.payload() instanceof JobStarted s) {
                System.out.println("started " + r.key() + " " + s.getPid());
            }
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
