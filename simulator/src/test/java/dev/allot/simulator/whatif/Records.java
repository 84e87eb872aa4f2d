package dev.allot.simulator.whatif;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Hand-made log records, as the services write them, at times in seconds from an origin. */
final class Records {

    static final Instant T0 = Instant.parse("2026-11-20T00:00:00Z");

    private Records() {
    }

    static Instant at(double seconds) {
        return T0.plusMillis(Math.round(seconds * 1000));
    }

    static JobRequest submitted(String job, String budget, String cluster, int replicas, int gpus, long minRuntime,
            boolean resumable, Long expected, double at) {
        return JobRequest.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(at))
                .setPayload(JobSubmitted.newBuilder().setJobId(job).setBudget(budget).setSubmitter("alice")
                        .setCluster(cluster).setReplicas(replicas).setGpusPerReplica(gpus)
                        .setMinRuntimeSeconds(minRuntime).setResumable(resumable).setPriority(0)
                        .setCommand(List.of("sleep", "1")).setExpectedDurationSeconds(expected).setSubmittedAt(at(at))
                        .build())
                .build();
    }

    private static JobEvent event(String job, double at, Object payload) {
        return JobEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(at)).setJobId(job)
                .setPayload(payload).build();
    }

    static JobEvent placed(String job, String budget, String cluster, double at) {
        return event(job, at, JobPlaced.newBuilder().setCluster(cluster).setBudget(budget)
                .setAssignments(List.of(GpuAssignment.newBuilder().setNodeId("n1").setNodeEpoch(1).setReplicaIndex(0)
                        .setGpuIndices(List.of(0)).build()))
                .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(at(at + 60)).build());
    }

    static JobEvent checkpointed(String job, double at) {
        return event(job, at, JobCheckpointed.newBuilder().setNodeId("n1").setReplicaIndex(0).build());
    }

    static JobEvent preempted(String job, double at) {
        return preempted(job, at, true);
    }

    static JobEvent preempted(String job, double at, boolean requeue) {
        return event(job, at, JobPreempted.newBuilder().setReason(PreemptionReason.FAIR_SHARE).setExplanation("test")
                .setRequeue(requeue).build());
    }

    static JobEvent requeued(String job, double at) {
        return event(job, at, JobRequeued.newBuilder().setQueuedAt(at(at)).setRestartCount(1).setReason("preempted")
                .build());
    }

    static JobEvent completed(String job, double at) {
        return event(job, at, JobCompleted.newBuilder().build());
    }

    static JobEvent rejected(String job, double at) {
        return event(job, at, JobRejected.newBuilder().setReason("too big").build());
    }

    static JobEvent cancelled(String job, double at, boolean wasRunning) {
        return event(job, at, JobCancelled.newBuilder().setRequestedBy("alice").setWasRunning(wasRunning).build());
    }

    static BudgetEvent defined(String path, String parent, double share, double at) {
        return BudgetEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(at))
                .setPayload(BudgetDefined.newBuilder().setPath(path).setParent(parent).setShare(share)
                        .setEffectiveAt(at(at)).build())
                .build();
    }

    static BudgetEvent removed(String path, double at) {
        return BudgetEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(at))
                .setPayload(BudgetRemoved.newBuilder().setPath(path).setEffectiveAt(at(at)).build()).build();
    }

    static NodeStatus registered(String node, String cluster, int gpus, double at) {
        return NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(at)).setNodeId(node)
                .setPayload(NodeRegistered.newBuilder().setCluster(cluster).setGpuCount(gpus).setGpuModel("fake")
                        .setEpoch(1).setAgentId("agent").build())
                .build();
    }
}
