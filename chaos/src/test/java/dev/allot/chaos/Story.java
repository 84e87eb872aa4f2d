package dev.allot.chaos;

import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.UsageReported;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A hand-made log, told in seconds after {@link #T0}: what a chaos run would have written. */
final class Story {

    static final Instant T0 = Instant.parse("2026-12-03T05:00:00Z");
    static final String CLUSTER = "local";
    static final String TEAM = "lab/team-a";

    final List<JobSubmitted> submissions = new ArrayList<>();
    final List<JobEvent> events = new ArrayList<>();
    final List<UsageReported> usage = new ArrayList<>();
    final List<BudgetUsage> budgetUsage = new ArrayList<>();
    final List<DeadLetter> deadLetters = new ArrayList<>();

    static Instant at(double seconds) {
        return T0.plusMillis(Math.round(seconds * 1000));
    }

    Story submit(double t, String job, String... command) {
        submissions.add(JobSubmitted.newBuilder().setJobId(job).setBudget(TEAM).setSubmitter("chaos")
                .setCluster(CLUSTER).setReplicas(1).setGpusPerReplica(1).setMinRuntimeSeconds(30).setResumable(true)
                .setPriority(0).setCommand(Arrays.asList(command)).setEnv(Map.of()).setSecretEnv(Map.of())
                .setExpectedDurationSeconds(null).setSubmittedAt(at(t)).setCheckpointGraceSeconds(null).build());
        return this;
    }

    /** Submitted and accepted at t. */
    Story accept(double t, String job, String... command) {
        submit(t, job, command);
        return event(t, job, JobAccepted.newBuilder().setBudget(TEAM).setCluster(CLUSTER)
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(at(t)).setReplicas(1).setGpusPerReplica(1)
                .setMinRuntimeSeconds(30).setResumable(true).setPriority(0).setExpectedDurationSeconds(null)
                .setSubmitter("chaos").build());
    }

    Story reject(double t, String job) {
        submit(t, job, "sleep", "3");
        return event(t, job, JobRejected.newBuilder().setReason("no").setField(null).build());
    }

    Story placed(double t, String job, String node, Integer... gpus) {
        return event(t, job, JobPlaced.newBuilder().setCluster(CLUSTER).setBudget(TEAM)
                .setAssignments(List.of(GpuAssignment.newBuilder().setNodeId(node).setNodeEpoch(1).setReplicaIndex(0)
                        .setGpuIndices(List.of(gpus)).build()))
                .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(at(t + 30)).setAttempt(1)
                .setExplanation(null).setDebugLane(false).build());
    }

    Story started(double t, String job, String node) {
        return event(t, job, JobStarted.newBuilder().setNodeId(node).setNodeEpoch(1).setReplicaIndex(0).setPid(42L)
                .build());
    }

    Story exited(double t, String job, String node, int code, boolean stopped) {
        return event(t, job, JobExited.newBuilder().setNodeId(node).setReplicaIndex(0).setExitCode(code)
                .setStopped(stopped).build());
    }

    Story completed(double t, String job) {
        return event(t, job, JobCompleted.newBuilder().setChargedGpuSeconds(0).build());
    }

    Story failed(double t, String job, Integer code) {
        return event(t, job, JobFailed.newBuilder().setReason("exit " + code).setExitCode(code).build());
    }

    Story preempted(double t, String job, boolean requeue) {
        return event(t, job, JobPreempted.newBuilder().setReason(PreemptionReason.FAIR_SHARE).setExplanation("x")
                .setPreemptorJobId(null).setPreemptorAccount(null).setRatios(List.of()).setLostGpuSeconds(0)
                .setRequeue(requeue).build());
    }

    /** A whole clean run of one GPU job on node n1: accepted, placed, started, exited 0, completed. */
    Story runs(double from, double to, String job, Integer... gpus) {
        return accept(from, job, "sleep", "3").placed(from, job, "n1", gpus).started(from + 0.1, job, "n1")
                .exited(to - 0.1, job, "n1", 0, false).completed(to, job);
    }

    Story used(double from, double to, String job, double gpuSeconds, ChargeMode mode) {
        usage.add(UsageReported.newBuilder().setJobId(job).setAccount(TEAM).setCluster(CLUSTER).setNodeId("n1")
                .setGpus(1).setIntervalStart(at(from)).setIntervalEnd(at(to)).setGpuSeconds(gpuSeconds)
                .setChargeMode(mode).setMeanGpuUtilisation(null).build());
        return this;
    }

    Story accounted(double asOf, double charged, double free) {
        budgetUsage.add(BudgetUsage.newBuilder().setAccount(TEAM).setCluster(CLUSTER)
                .setWindowStart(at(asOf).minusSeconds(7 * 86400)).setWindowEnd(at(asOf))
                .setChargedGpuSeconds(charged).setUnallocatedGpuSeconds(free).setEntitledGpuSeconds(null)
                .setRatio(null).build());
        return this;
    }

    Story deadLetter(double t, String consumer) {
        deadLetters.add(DeadLetter.newBuilder().setSourceTopic("job-requests").setPartition(0).setOffset(1)
                .setKey(null).setValue(null).setReason("malformed").setConsumer(consumer).setFailedAt(at(t)).build());
        return this;
    }

    private Story event(double t, String job, Object payload) {
        events.add(JobEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(t)).setJobId(job)
                .setStateAfter(null).setPayload(payload).build());
        return this;
    }

    ChaosLog log(double readAt) {
        return new ChaosLog(submissions, events, usage, budgetUsage, deadLetters, 0, at(readAt));
    }

    ChaosReport judge(double readAt, String... acknowledged) {
        return ChaosVerdict.judge(log(readAt), T0, List.of(acknowledged), List.of());
    }
}
