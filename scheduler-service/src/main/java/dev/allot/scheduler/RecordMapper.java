package dev.allot.scheduler;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;

/**
 * A typed input event becomes the {@link Input}s it means for this instance's cluster: no state, no
 * side effect (the caller applies them). Other clusters' jobs and nodes, our own decisions read back
 * from {@code job-events} and agents' reports of jobs we never knew map to nothing.
 */
final class RecordMapper {

    /** The event breaks a rule of its topic (a share ≤ 0, a node with < 1 GPU): a dead letter with this reason. */
    static final class InvalidRecord extends RuntimeException {
        InvalidRecord(String message) {
            super(message);
        }
    }

    private final String cluster;

    RecordMapper(String cluster) {
        this.cluster = cluster;
    }

    /**
     * @param now the loop's clock: every input carries it as the time it is applied at
     * @param knowsJob whether a job id was submitted here (cancels and agent reports of other jobs are not ours)
     */
    List<Input> map(SpecificRecord event, long now, Predicate<String> knowsJob) {
        return switch (event) {
            case JobRequest r -> request(r, now, knowsJob);
            case BudgetEvent b -> budget(b, now);
            case NodeStatus s -> node(s, now);
            case BudgetUsage u -> cluster.equals(u.getCluster())
                    ? List.of(new Input.Usage(now, u.getAccount(), u.getChargedGpuSeconds(), u.getUnallocatedGpuSeconds()))
                    : List.of();
            case JobEvent e -> knowsJob.test(e.getJobId()) ? agentReport(e, now) : List.of();
            default -> throw new InvalidRecord("not an input event: " + event.getClass().getSimpleName());
        };
    }

    private List<Input> request(JobRequest request, long now, Predicate<String> knowsJob) {
        return switch (request.getPayload()) {
            case JobSubmitted s when cluster.equals(s.getCluster()) -> List.of(new Input.Submit(now, s.getJobId(),
                    s.getBudget(), s.getSubmitter(), s.getCluster(), s.getReplicas(), s.getGpusPerReplica(),
                    s.getMinRuntimeSeconds(), s.getResumable(), s.getPriority(), List.copyOf(s.getCommand()),
                    launchEnv(s), s.getExpectedDurationSeconds(),
                    s.getSubmittedAt().toEpochMilli(), s.getCheckpointGraceSeconds()));
            case JobCancelRequested c when knowsJob.test(c.getJobId()) ->
                    List.of(new Input.Cancel(now, c.getJobId(), c.getRequestedBy(), c.getReason()));
            default -> List.of(); // another cluster's job
        };
    }

    /**
     * The env a StartJob carries: the job's own, plus each secret reference as {@code secret:<VAR> -> <secret name>}
     * (no env name has a ':', so they cannot clash). Only the names travel; the node agent reads the values from its
     * secret store. Folded here so that the scheduling core and node-commands carry env as the opaque map they are.
     */
    static Map<String, String> launchEnv(JobSubmitted s) {
        Map<String, String> env = new java.util.LinkedHashMap<>(s.getEnv() == null ? Map.of() : s.getEnv());
        if (s.getSecretEnv() != null) {
            s.getSecretEnv().forEach((variable, secret) -> env.put("secret:" + variable, secret));
        }
        return Map.copyOf(env);
    }

    private static List<Input> budget(BudgetEvent event, long now) {
        return switch (event.getPayload()) {
            case BudgetDefined d -> {
                if (!(d.getShare() > 0) || Double.isInfinite(d.getShare())) {
                    throw new InvalidRecord("budget " + d.getPath() + ": share must be > 0, got " + d.getShare());
                }
                Instant created = d.getCreatedAt() != null ? d.getCreatedAt() : d.getEffectiveAt();
                yield List.of(new Input.DefineBudget(now, d.getPath(), d.getParent(), d.getShare(),
                        created != null ? created.toEpochMilli() : now));
            }
            case BudgetRemoved r -> List.of(new Input.RemoveBudget(now, r.getPath()));
            default -> List.of();
        };
    }

    private List<Input> node(NodeStatus status, long now) {
        String nodeId = status.getNodeId();
        return switch (status.getPayload()) {
            case NodeRegistered r when cluster.equals(r.getCluster()) -> {
                if (r.getGpuCount() < 1) {
                    throw new InvalidRecord("node " + nodeId + " registered with " + r.getGpuCount() + " GPUs");
                }
                yield List.of(new Input.RegisterNode(now, nodeId, r.getGpuCount(), r.getEpoch()));
            }
            case NodeHeartbeat h when cluster.equals(h.getCluster()) ->
                    List.of(new Input.Heartbeat(now, nodeId, h.getEpoch(), h.getRunningJobs()));
            case NodeDrainRequested d when cluster.equals(d.getCluster()) ->
                    List.of(new Input.Drain(now, nodeId, d.getRequestedBy()));
            case NodeUndrained u when cluster.equals(u.getCluster()) -> List.of(new Input.Undrain(now, nodeId));
            default -> List.of(); // NodeDrained is ours; other clusters' nodes are not
        };
    }

    private static List<Input> agentReport(JobEvent event, long now) {
        return switch (event.getPayload()) {
            case JobStarted s -> List.of(new Input.Started(now, event.getJobId(), s.getNodeId()));
            case JobCheckpointed c -> List.of(new Input.Checkpointed(now, event.getJobId(), c.getNodeId()));
            case JobExited e -> List.of(new Input.Exited(now, event.getJobId(), e.getNodeId(), e.getReplicaIndex(),
                    e.getExitCode(), e.getStopped()));
            default -> List.of(); // our own decisions: already applied when taken
        };
    }
}
