package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.allot.core.ChargeMode;
import dev.allot.core.Decision;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.explain.AccountUsage;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Core decisions to records, without the core or Kafka: what each decision writes, in order. */
class DecisionWriterTest {

    static final String CLUSTER = "unit";
    static final long NOW = 10_000;
    static final List<ReplicaPlacement> GANG = List.of(new ReplicaPlacement("n1", 1, List.of(0, 1)),
            new ReplicaPlacement("n2", 1, List.of(4, 5)));

    /** j1 is ours (requeued twice, queued since 500); agents: n1 at epoch 7, n2 at epoch 3. */
    static final DecisionWriter.Facts FACTS = new DecisionWriter.Facts() {
        @Override
        public long agentEpoch(String nodeId) {
            return nodeId.equals("n1") ? 7 : 3;
        }

        @Override
        public EdgeJob.Launch launch(String jobId) {
            return jobId.equals("j1") ? new EdgeJob.Launch(List.of("train"), Map.of("A", "1")) : null;
        }

        @Override
        public boolean inDebugLane(String jobId) {
            return false;
        }

        @Override
        public int requeues(String jobId) {
            return 2;
        }

        @Override
        public long queuedSince(String jobId) {
            return 500;
        }

        @Override
        public AccountUsage usage(String account) {
            return new AccountUsage(account, CLUSTER, 100, 0, 50, 2, 0.5);
        }
    };

    final DecisionWriter writer = new DecisionWriter(CLUSTER, 30, FACTS);

    static Object payload(Output o) {
        return o.value() instanceof JobEvent e ? e.getPayload()
                : o.value() instanceof NodeCommand c ? c.getPayload()
                : o.value() instanceof NodeStatus s ? s.getPayload() : o.value();
    }

    static List<Object> payloads(List<Output> out) {
        return out.stream().map(DecisionWriterTest::payload).toList();
    }

    @Test
    void given_a_placed_gang_when_written_then_a_start_per_replica_with_its_agents_epoch_then_job_placed() {
        Decision.Place place = new Decision.Place("j1", "lab/a", CLUSTER, GANG, ChargeMode.ALLOCATED, 70_000, "fits");

        List<Output> out = writer.write(place, NOW, List.of());

        assertThat(out).extracting(Output::topic).containsExactly(Topics.NODE_COMMANDS.name(),
                Topics.NODE_COMMANDS.name(), Topics.JOB_EVENTS.name());
        assertThat(out).extracting(Output::key).containsExactly("n1", "n2", "j1");
        StartJob first = (StartJob) payload(out.get(0));
        assertThat(first.getNodeEpoch()).isEqualTo(7);
        assertThat(first.getGpuIndices()).containsExactly(0, 1);
        assertThat(first.getCommand()).containsExactly("train");
        assertThat(first.getEnv()).containsEntry("A", "1");
        assertThat(first.getRestartCount()).isEqualTo(2);
        assertThat(((StartJob) payload(out.get(1))).getNodeEpoch()).isEqualTo(3);
        JobPlaced placed = (JobPlaced) payload(out.get(2));
        assertThat(placed.getAttempt()).isEqualTo(3);
        assertThat(placed.getProtectedUntil()).isEqualTo(Instant.ofEpochMilli(70_000));
        assertThat(placed.getAssignments()).extracting(a -> a.getNodeId() + "@" + a.getNodeEpoch())
                .containsExactly("n1@7", "n2@3");
        assertThat(((JobEvent) out.get(2).value()).getStateAfter()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void given_jobs_that_declare_a_checkpoint_grace_when_stopped_then_preemption_and_drain_give_it_capped_and_other_stops_the_default() {
        Map<String, Integer> declared = Map.of("asks-2min", 120, "asks-1h", 3600, "asks-nothing", -1);
        DecisionWriter.Facts facts = new DecisionWriter.Facts() {
            @Override
            public long agentEpoch(String nodeId) {
                return 1;
            }

            @Override
            public boolean inDebugLane(String jobId) {
                return false;
            }

            @Override
            public EdgeJob.Launch launch(String jobId) {
                int grace = declared.get(jobId);
                return new EdgeJob.Launch(List.of("train"), Map.of(), grace < 0 ? null : grace);
            }

            @Override
            public int requeues(String jobId) {
                return 0;
            }

            @Override
            public long queuedSince(String jobId) {
                return 0;
            }

            @Override
            public AccountUsage usage(String account) {
                return FACTS.usage(account);
            }
        };
        DecisionWriter graceful = new DecisionWriter(CLUSTER, 30, facts);
        java.util.function.BiFunction<String, StopReason, Integer> graceOf = (job, reason) -> {
            Decision.Preempt preempt = new Decision.Preempt(job, "lab/a", "j9", "lab/b", ChargeMode.UNALLOCATED,
                    Double.NaN, 0.25, true, "displaced", GANG, 0);
            return ((StopJob) payload(graceful.write(preempt, NOW, List.of(new EdgeJob.Stop("n1", reason))).get(0)))
                    .getGracePeriodSeconds();
        };

        assertThat(graceOf.apply("asks-2min", StopReason.PREEMPTED)).isEqualTo(120);
        assertThat(graceOf.apply("asks-2min", StopReason.DRAIN)).isEqualTo(120);
        assertThat(graceOf.apply("asks-1h", StopReason.PREEMPTED)).isEqualTo(DecisionWriter.MAX_CHECKPOINT_GRACE_SECONDS);
        assertThat(graceOf.apply("asks-nothing", StopReason.PREEMPTED)).isEqualTo(30);
        assertThat(graceOf.apply("asks-2min", StopReason.CANCELLED)).isEqualTo(30);
        assertThat(graceOf.apply("asks-2min", StopReason.GANG_FAILED)).isEqualTo(30);
    }

    @Test
    void given_a_preemption_when_written_then_the_stops_then_who_and_why_with_the_work_lost_then_requeued() {
        Decision.Preempt preempt = new Decision.Preempt("j1", "lab/a", "j9", "lab/b", ChargeMode.UNALLOCATED,
                Double.NaN, 0.25, true, "displaced", GANG, 42.5);
        List<EdgeJob.Stop> stops = List.of(new EdgeJob.Stop("n2", StopReason.PREEMPTED));

        List<Output> out = writer.write(preempt, NOW, stops);

        assertThat(payloads(out)).hasSize(3);
        StopJob stop = (StopJob) payload(out.get(0));
        assertThat(stop.getNodeId()).isEqualTo("n2");
        assertThat(stop.getNodeEpoch()).isEqualTo(3);
        assertThat(stop.getReason()).isEqualTo(StopReason.PREEMPTED);
        assertThat(stop.getGracePeriodSeconds()).isEqualTo(30);
        JobPreempted preempted = (JobPreempted) payload(out.get(1));
        assertThat(preempted.getReason()).isEqualTo(PreemptionReason.UNALLOCATED_DISPLACED);
        assertThat(preempted.getPreemptorJobId()).isEqualTo("j9");
        assertThat(preempted.getLostGpuSeconds()).isEqualTo(42.5);
        assertThat(preempted.getRatios()).extracting(AccountRatio::getAccount, AccountRatio::getRatio)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lab/a", null),
                        org.assertj.core.groups.Tuple.tuple("lab/b", 0.25));
        JobRequeued requeued = (JobRequeued) payload(out.get(2));
        assertThat(requeued.getQueuedAt()).isEqualTo(Instant.ofEpochMilli(500));
        assertThat(requeued.getRestartCount()).isEqualTo(2);
        assertThat(requeued.getReason()).isEqualTo("preempted by j9: displaced");
        assertThat(out.subList(1, 3)).allSatisfy(o -> assertThat(((JobEvent) o.value()).getStateAfter())
                .isEqualTo(JobState.WAITING));
    }

    @Test
    void given_a_requeue_after_a_node_loss_when_written_then_fenced_stop_then_job_lost_then_requeued() {
        Decision.Requeue requeue = new Decision.Requeue("j1", "lab/a", "n1", "node n1 was lost", GANG, 0);
        List<EdgeJob.Stop> stops = List.of(new EdgeJob.Stop("n1", StopReason.FENCED),
                new EdgeJob.Stop("n2", StopReason.NOT_ASSIGNED));

        List<Output> out = writer.write(requeue, NOW, stops);

        assertThat(payloads(out)).hasSize(4);
        assertThat(payloads(out).subList(0, 2)).extracting(p -> ((StopJob) p).getReason())
                .containsExactly(StopReason.FENCED, StopReason.NOT_ASSIGNED);
        assertThat(payload(out.get(2))).isEqualTo(new JobLost("n1", "node n1 was lost"));
        assertThat(((JobRequeued) payload(out.get(3))).getReason()).isEqualTo("node n1 lost: node n1 was lost");
    }

    @Test
    void given_a_release_for_drain_when_written_then_a_drain_preemption_without_preemptor() {
        Decision.ReleaseForDrain release = new Decision.ReleaseForDrain("j1", "lab/a", "n1", true, "draining", GANG, 7);

        List<Output> out = writer.write(release, NOW, List.of(new EdgeJob.Stop("n1", StopReason.DRAIN)));

        JobPreempted preempted = (JobPreempted) payload(out.get(1));
        assertThat(preempted.getReason()).isEqualTo(PreemptionReason.DRAIN);
        assertThat(preempted.getPreemptorJobId()).isNull();
        assertThat(preempted.getRatios()).isEmpty();
        assertThat(preempted.getLostGpuSeconds()).isEqualTo(7.0);
        assertThat(((JobRequeued) payload(out.get(2))).getReason()).isEqualTo("node n1 drains: draining");
    }

    @Test
    void given_a_drained_node_when_written_then_node_drained_on_node_status_keyed_by_the_node() {
        List<Output> out = writer.write(new Decision.NodeDrained("n1", CLUSTER, "empty"), NOW, List.of());

        assertThat(out).singleElement().satisfies(o -> {
            assertThat(o.topic()).isEqualTo(Topics.NODE_STATUS.name());
            assertThat(o.key()).isEqualTo("n1");
            assertThat(payload(o)).isEqualTo(new NodeDrained(CLUSTER));
        });
    }

    @Test
    void given_a_core_rejection_when_written_then_job_rejected_without_a_field() {
        List<Output> out = writer.write(new Decision.Reject("j1", "lab/a", "no such shape"), NOW, List.of());

        assertThat(payloads(out)).containsExactly(new JobRejected("no such shape", null));
        assertThat(((JobEvent) out.get(0).value()).getStateAfter()).isEqualTo(JobState.REJECTED);
    }

    @Test
    void given_a_reservation_or_a_job_not_submitted_here_when_written_then_nothing() {
        Decision.Reserve reserve = new Decision.Reserve("j1", CLUSTER, List.of("n1"), 90_000, "held");
        Decision.Place foreign = new Decision.Place("j7", "lab/a", CLUSTER, GANG, ChargeMode.ALLOCATED, 0, "fits");

        assertThat(writer.write(reserve, NOW, List.of())).isEmpty();
        assertThat(writer.write(foreign, NOW, List.of())).isEmpty();
    }

    @Test
    void given_a_cancel_of_a_running_job_when_written_then_its_stops_then_job_cancelled() {
        List<Output> out = writer.cancelled(new Input.Cancel(NOW, "j1", "alice", "wrong input"),
                List.of(new EdgeJob.Stop("n1", StopReason.CANCELLED)), true);

        assertThat(((StopJob) payload(out.get(0))).getReason()).isEqualTo(StopReason.CANCELLED);
        JobEvent verdict = (JobEvent) out.get(1).value();
        assertThat(verdict.getStateAfter()).isEqualTo(JobState.CANCELLED);
        assertThat(verdict.getPayload()).isEqualTo(new dev.allot.schemas.JobCancelled("alice", "wrong input", true));
    }

    @Test
    void theWarmUpSamplesAreOneValidRecordPerTopicAPlacementWrites() {
        List<Output> samples = DecisionWriter.samples();

        assertThat(samples).extracting(Output::topic).containsExactlyInAnyOrder(Topics.JOB_EVENTS.name(),
                Topics.NODE_COMMANDS.name());
        // a record missing a required field would fail the serialiser at the start of every term
        for (Output o : samples) {
            var bytes = new java.io.ByteArrayOutputStream();
            var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(bytes, null);
            assertThatCode(() -> {
                new org.apache.avro.specific.SpecificDatumWriter<org.apache.avro.specific.SpecificRecord>(
                        o.value().getSchema()).write(o.value(), encoder);
                encoder.flush();
            }).as(o.topic()).doesNotThrowAnyException();
            assertThat(bytes.size()).as(o.topic()).isPositive();
        }
    }
}
