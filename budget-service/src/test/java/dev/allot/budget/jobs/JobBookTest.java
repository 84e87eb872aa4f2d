package dev.allot.budget.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.PreemptionReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class JobBookTest {

    private static final byte WIRE_MARK = 42;
    private static final Instant T0 = Instant.parse("2026-12-07T08:00:00Z");

    @Test
    void givenFinishedJobsKeptAsFacts_whenRead_thenEveryViewHistoryAndLineEqualsTheWholeRecords() {
        Random random = new Random(12);
        List<SpecificRecord> facts = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = "job-" + i;
            ids.add(id);
            facts.addAll(life(id, i % 6, random));
        }
        JobBook whole = new JobBook(Integer.MAX_VALUE);
        JobBook compact = new JobBook(3);
        compact.readWireWith(JobBookTest::fromWire);

        facts.forEach(fact -> tell(whole, fact));
        // every other fact as if read from the log: with the bytes it was read from, kept as they are
        for (int i = 0; i < facts.size(); i++) {
            SpecificRecord fact = facts.get(i);
            tellWithWire(compact, fact, i % 2 == 0 ? toWire(fact) : null);
        }

        long finished = ids.stream().filter(id -> whole.find(id).orElseThrow().isFinished()).count();
        assertThat(finished).as("the lives below finish but one in six").isEqualTo(34);
        assertThat(compact.finishedAsFacts()).isEqualTo(finished - 3);
        assertThat(whole.finishedAsFacts()).isZero();
        for (String id : ids) {
            JobRecord expected = whole.find(id).orElseThrow();
            JobRecord actual = compact.find(id).orElseThrow();
            assertThat(actual.view()).as(id).isEqualTo(expected.view());
            assertThat(actual.summary()).as(id).isEqualTo(expected.summary());
            assertThat(actual.nodesByReplica()).as(id).isEqualTo(expected.nodesByReplica());
        }
        assertThat(compact.summaries().toList()).containsExactlyInAnyOrderElementsOf(whole.summaries().toList());
        assertThat(compact.wholeRecords().map(JobRecord::id))
                .as("the running jobs and the three most recently finished stay whole")
                .hasSize(ids.size() - (int) finished + 3)
                .containsAll(ids.stream().filter(id -> !whole.find(id).orElseThrow().isFinished()).toList());
        assertThat(compact.reopened()).isZero();
    }

    @Test
    void givenAJobKeptAsFacts_whenItsSubmissionComesAfterItsCompletion_thenItIsAppliedOnce() {
        JobBook book = new JobBook(0);
        String id = "late-submission";
        List<SpecificRecord> life = life(id, 0, new Random(1));
        SpecificRecord submission = life.remove(0);
        life.forEach(fact -> tell(book, fact));
        assertThat(book.finishedAsFacts()).isEqualTo(1);
        assertThat(book.find(id).orElseThrow().view().get("command")).as("no submission seen yet").isNull();

        tell(book, submission);
        tell(book, submission); // read again: a replay, or this instance's own POST then the log

        JobRecord job = book.find(id).orElseThrow();
        assertThat(book.reopened()).isEqualTo(2);
        assertThat(book.finishedAsFacts()).as("still finished: kept as facts again").isEqualTo(1);
        assertThat(job.view().get("command")).isEqualTo(List.of("sleep", "1"));
        assertThat(job.summary().submitter()).isEqualTo("alice");
        assertThat(job.historyLines()).extracting(line -> line.get("type"))
                .containsExactly("JobSubmitted", "JobAccepted", "JobPlaced", "JobStarted", "JobExited", "JobCompleted");
    }

    @Test
    void givenAFinishedJobKeptAsFacts_whenAnEventReopensIt_thenItIsWholeAgain() {
        JobBook book = new JobBook(0);
        String id = "back-again";
        life(id, 1, new Random(2)).forEach(fact -> tell(book, fact));
        assertThat(book.finishedAsFacts()).isEqualTo(1);

        tell(book, event(id, 99, JobState.WAITING, JobAccepted.newBuilder().setBudget("lab/a").setCluster("local")
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(T0).setReplicas(1).setGpusPerReplica(2)
                .setMinRuntimeSeconds(60).setResumable(true).setPriority(0).setExpectedDurationSeconds(null)
                .setSubmitter("alice").build()));

        assertThat(book.finishedAsFacts()).isZero();
        assertThat(book.wholeRecords().map(JobRecord::id)).containsExactly(id);
        assertThat(book.find(id).orElseThrow().summary().state()).isEqualTo("WAITING");
    }

    private static void tell(JobBook book, SpecificRecord fact) {
        tellWithWire(book, fact, null);
    }

    private static void tellWithWire(JobBook book, SpecificRecord fact, byte[] wire) {
        if (fact instanceof JobRequest request) {
            book.request(request, wire);
        } else {
            book.event((JobEvent) fact, wire);
        }
    }

    /** Stands in for the registry's wire format: Avro's single-object encoding, with a marker of its own. */
    private static byte[] toWire(SpecificRecord fact) {
        try {
            ByteBuffer encoded = fact instanceof JobRequest request ? request.toByteBuffer() : ((JobEvent) fact).toByteBuffer();
            byte[] wire = new byte[encoded.remaining() + 1];
            wire[0] = WIRE_MARK;
            encoded.get(wire, 1, encoded.remaining());
            return wire;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SpecificRecord fromWire(byte[] wire, Class<? extends SpecificRecord> type) {
        assertThat(wire[0]).as("the bytes kept are the bytes read").isEqualTo(WIRE_MARK);
        ByteBuffer encoded = ByteBuffer.wrap(wire, 1, wire.length - 1);
        try {
            return type == JobRequest.class ? JobRequest.fromByteBuffer(encoded) : JobEvent.fromByteBuffer(encoded);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A job's facts: 0 completed, 1 preempted then completed, 2 cancelled, 3 rejected, 4 failed, 5 still running. */
    private static List<SpecificRecord> life(String id, int kind, Random random) {
        int t = random.nextInt(1000);
        List<SpecificRecord> facts = new ArrayList<>();
        facts.add(JobRequest.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(t))
                .setPayload(JobSubmitted.newBuilder().setJobId(id).setBudget("lab/a").setSubmitter("alice")
                        .setCluster("local").setReplicas(1).setGpusPerReplica(2).setMinRuntimeSeconds(60)
                        .setResumable(true).setPriority(0).setCommand(List.of("sleep", "1"))
                        .setEnv(Map.of("SEED", "" + random.nextInt())).setSecretEnv(Map.of())
                        .setExpectedDurationSeconds(kind == 1 ? 3600L : null).setSubmittedAt(at(t))
                        .setCheckpointGraceSeconds(null).build())
                .build());
        if (kind == 3) {
            facts.add(event(id, t + 1, JobState.REJECTED, JobRejected.newBuilder().setReason("no such account")
                    .setField("budget").build()));
            return facts;
        }
        facts.add(event(id, t + 1, JobState.WAITING, JobAccepted.newBuilder().setBudget("lab/a").setCluster("local")
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(at(t + 1)).setReplicas(1).setGpusPerReplica(2)
                .setMinRuntimeSeconds(60).setResumable(true).setPriority(0).setExpectedDurationSeconds(null)
                .setSubmitter("alice").build()));
        if (kind == 2) {
            facts.add(JobRequest.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(t + 2))
                    .setPayload(JobCancelRequested.newBuilder().setJobId(id).setRequestedBy("alice")
                            .setReason("wrong data").setRequestedAt(at(t + 2)).build())
                    .build());
            facts.add(event(id, t + 3, JobState.CANCELLED, JobCancelled.newBuilder().setRequestedBy("alice")
                    .setReason("wrong data").build()));
            return facts;
        }
        String node = "n" + random.nextInt(8);
        facts.add(placed(id, t + 2, node, 1));
        facts.add(event(id, t + 3, null, JobStarted.newBuilder().setNodeId(node).setNodeEpoch(1).setReplicaIndex(0)
                .setPid(100L + random.nextInt(1000)).build()));
        if (kind == 5) {
            return facts;
        }
        if (kind == 1) {
            facts.add(event(id, t + 50, JobState.WAITING, JobPreempted.newBuilder()
                    .setReason(PreemptionReason.FAIR_SHARE).setExplanation("lab/b is owed more")
                    .setPreemptorJobId("other").setPreemptorAccount("lab/b").setRatios(List.of())
                    .setLostGpuSeconds(94).setRequeue(true).build()));
            facts.add(placed(id, t + 70, "n9", 2));
        }
        facts.add(event(id, t + 100, null, JobExited.newBuilder().setNodeId(node).setReplicaIndex(0)
                .setExitCode(kind == 4 ? 3 : 0).setStopped(false).build()));
        facts.add(kind == 4
                ? event(id, t + 101, JobState.FAILED, JobFailed.newBuilder().setReason("exit 3").setExitCode(3).build())
                : event(id, t + 101, JobState.COMPLETED, JobCompleted.newBuilder().setChargedGpuSeconds(196).build()));
        return facts;
    }

    private static JobEvent placed(String id, int t, String node, int attempt) {
        return event(id, t, JobState.RUNNING, JobPlaced.newBuilder().setCluster("local").setBudget("lab/a")
                .setAssignments(List.of(GpuAssignment.newBuilder().setNodeId(node).setNodeEpoch(1).setReplicaIndex(0)
                        .setGpuIndices(List.of(0, 1)).build()))
                .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(at(t + 60)).setAttempt(attempt)
                .setExplanation("fits on " + node).setDebugLane(false).build());
    }

    private static JobEvent event(String id, int t, JobState stateAfter, Object payload) {
        return JobEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(at(t)).setJobId(id)
                .setStateAfter(stateAfter).setPayload(payload).build();
    }

    private static Instant at(int seconds) {
        return T0.plusSeconds(seconds);
    }
}
