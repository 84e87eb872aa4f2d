package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.JobView;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobState;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rebuild from the log without Kafka: a live projection is driven by typed records (as the loop
 * reads them) and its decisions are appended to the same per-topic log; {@link LogRestore} folds
 * that log into a fresh projection, which must hold what the live one holds and decide the same.
 */
class LogRestoreTest {

    static final String CLUSTER = "unit";
    final Settings settings = Settings.of("unused:9092", "http://unused", CLUSTER);
    final RecordMapper mapper = new RecordMapper(CLUSTER);
    Projection live;
    long t = 1_700_000_000_000L;
    final List<SpecificRecord> budgets = new ArrayList<>();
    final List<SpecificRecord> nodeStatus = new ArrayList<>();
    final List<JobRequest> requests = new ArrayList<>();
    final List<JobEvent> jobEvents = new ArrayList<>();

    @BeforeEach
    void given_budgets_and_two_8_gpu_nodes() {
        live = new Projection(settings);
        budget("lab", null);
        budget("lab/a", "lab");
        budget("lab/b", "lab");
        node("n1", 8, 7);
        node("n2", 8, 3);
    }

    // ------------------------------------------------------------------ the log, written as live

    void read(SpecificRecord event) {
        t++;
        List<Output> out = new ArrayList<>();
        for (Input in : mapper.map(event, t, live::knowsJob)) {
            live.apply(in, out);
        }
        written(out);
    }

    List<Output> pass() {
        List<Output> out = new ArrayList<>();
        live.pass(++t, out);
        written(out);
        return out;
    }

    private void written(List<Output> out) {
        for (Output o : out) {
            if (o.value() instanceof JobEvent e) {
                jobEvents.add(e);
            } else if (o.value() instanceof NodeStatus s) {
                nodeStatus.add(s);
            }
        }
    }

    void budget(String path, String parent) {
        BudgetEvent e = new BudgetEvent("b-" + path, Instant.ofEpochMilli(t), new BudgetDefined(path, parent, 1.0,
                Instant.ofEpochMilli(t), "test", List.of(), List.of(), null));
        budgets.add(e);
        read(e);
    }

    void node(String nodeId, int gpus, long epoch) {
        NodeStatus s = new NodeStatus("n-" + nodeId, Instant.ofEpochMilli(t), nodeId,
                new NodeRegistered(CLUSTER, gpus, "fake", epoch, "agent", null));
        nodeStatus.add(s);
        read(s);
    }

    void submit(String id, String budget, int replicas, int gpus, long minRuntime) {
        JobRequest r = new JobRequest("r-" + id, Instant.ofEpochMilli(t), new JobSubmitted(id, budget, "me", CLUSTER,
                replicas, gpus, minRuntime, true, 0, List.of("train", id), Map.of("K", "v"), Map.of(), null,
                Instant.ofEpochMilli(t), null));
        requests.add(r);
        read(r);
    }

    void cancel(String id) {
        JobRequest r = new JobRequest("c-" + id, Instant.ofEpochMilli(t),
                new JobCancelRequested(id, "alice", "no longer needed", Instant.ofEpochMilli(t)));
        requests.add(r);
        read(r);
    }

    void agent(String jobId, Object payload) {
        JobEvent e = new JobEvent("a-" + t, Instant.ofEpochMilli(t), jobId, null, payload);
        jobEvents.add(e);
        read(e);
    }

    String nodeOf(String jobId) {
        return live.core().job(jobId).orElseThrow().placement().get(0).nodeId();
    }

    Projection rebuilt() {
        LogRestore fold = new LogRestore(CLUSTER);
        budgets.forEach(b -> fold.fact(b, true));
        nodeStatus.forEach(s -> fold.fact(s, true));
        requests.forEach(r -> fold.request(r, true));
        jobEvents.forEach(e -> fold.jobEvent(e, true));
        return fold.into(settings, t);
    }

    // ------------------------------------------------------------------ the tests

    @Test
    void given_a_log_of_placements_preemption_verdicts_and_cancels_when_folded_then_the_projection_is_the_live_one() {
        // given a life: an unallocated job displaced by an allocated one, a job that completed, a gang
        // that checkpointed, a waiting job cancelled, a rejected submission
        submit("free", "lab/a", 1, 8, 0);
        submit("done", "lab/b", 1, 2, 60);
        pass();
        agent("done", new JobExited(nodeOf("done"), 0, 0, false));
        submit("gang", "lab/a", 1, 3, 60);
        pass();
        long checkpointedAt = t;
        agent("gang", new JobCheckpointed(nodeOf("gang"), 0, "s3://ckpt"));
        submit("paid", "lab/b", 1, 8, 600);
        String freeNode = nodeOf("free");
        pass();
        agent("free", new JobExited(freeNode, 0, 143, true));
        submit("gone", "lab/a", 1, 8, 600);
        pass();
        cancel("gone");
        submit("nope", "lab/none", 1, 1, 0);
        pass();
        assertThat(live.stateOf("free")).isEqualTo(JobState.WAITING);
        assertThat(live.stateOf("paid")).isEqualTo(JobState.RUNNING);

        // when the log is folded into a fresh projection
        Projection rebuilt = rebuilt();

        // then it runs the same jobs on the same GPUs, and every job stands as it did
        assertThat(rebuilt.runningPlacements()).isEqualTo(live.runningPlacements()).containsKeys("gang", "paid");
        // and it learned the same run times from the log: the job that completed, from its placement to its verdict
        assertThat(live.learned().runs()).isEqualTo(1);
        assertThat(rebuilt.learned()).isEqualTo(live.learned());
        for (String id : List.of("free", "done", "gang", "paid", "gone", "nope")) {
            assertThat(rebuilt.stateOf(id)).as(id).isEqualTo(live.stateOf(id));
            Optional<JobView> was = live.core().job(id).filter(j -> j.state() == dev.allot.core.JobState.WAITING
                    || j.state() == dev.allot.core.JobState.RUNNING);
            was.ifPresent(j -> {
                JobView now = rebuilt.core().job(id).orElseThrow();
                assertThat(now.queuedSinceMillis()).as(id).isEqualTo(j.queuedSinceMillis());
                assertThat(now.requeues()).as(id).isEqualTo(j.requeues());
                assertThat(now.placedAtMillis()).as(id).isEqualTo(j.placedAtMillis());
                assertThat(now.protectedUntilMillis()).as(id).isEqualTo(j.protectedUntilMillis());
                if (!id.equals("gang")) {
                    assertThat(now.lastCheckpointMillis()).as(id).isEqualTo(j.lastCheckpointMillis());
                }
            });
        }
        assertThat(rebuilt.core().job("free").orElseThrow().requeues()).isEqualTo(1);
        // a checkpoint counts from the agent's time (live counts it from when it was read, a moment later)
        assertThat(rebuilt.core().job("gang").orElseThrow().lastCheckpointMillis()).isEqualTo(checkpointedAt)
                .isLessThanOrEqualTo(live.core().job("gang").orElseThrow().lastCheckpointMillis());
        assertThat(rebuilt.knowsJob("nope")).isTrue();

        // and from here both decide the same: the gang ends, the waiting job is placed on the same GPUs
        Projection[] both = {live, rebuilt};
        List<List<String>> placements = new ArrayList<>();
        for (Projection p : both) {
            List<Output> out = new ArrayList<>();
            String gangNode = p.core().job("gang").orElseThrow().placement().get(0).nodeId();
            long at = t + 10;
            p.apply(new Input.Exited(at, "gang", gangNode, 0, 0, false), out);
            p.pass(at + 1, out);
            placements.add(out.stream().filter(o -> o.value() instanceof dev.allot.schemas.NodeCommand c
                            && c.getPayload() instanceof StartJob)
                    .map(o -> (StartJob) ((dev.allot.schemas.NodeCommand) o.value()).getPayload())
                    .map(s -> s.getJobId() + "@" + s.getNodeId() + s.getGpuIndices() + " " + s.getCommand()
                            + " epoch " + s.getNodeEpoch() + " restart " + s.getRestartCount())
                    .toList());
            assertThat(out).filteredOn(o -> o.value() instanceof JobEvent e
                    && e.getPayload() instanceof dev.allot.schemas.JobCompleted).hasSize(1);
        }
        assertThat(placements.get(1)).isEqualTo(placements.get(0)).isNotEmpty();
    }

    @Test
    void given_a_duplicate_submission_after_the_rebuild_then_it_is_refused_as_live() {
        submit("j1", "lab/a", 1, 1, 0);
        pass();
        Projection rebuilt = rebuilt();
        List<Output> out = new ArrayList<>();
        rebuilt.apply(mapper.map(new JobRequest("again", Instant.ofEpochMilli(t), new JobSubmitted("j1", "lab/a", "me",
                CLUSTER, 1, 1, 0L, true, 0, List.of("x"), Map.of(), Map.of(), null, Instant.ofEpochMilli(t), null)), t,
                rebuilt::knowsJob).get(0), out);
        assertThat(out).singleElement().satisfies(o -> {
            JobEvent e = (JobEvent) o.value();
            assertThat(e.getPayload()).isInstanceOf(dev.allot.schemas.JobRejected.class);
            assertThat(e.getStateAfter()).isEqualTo(JobState.RUNNING);
        });
    }

    @Test
    void given_records_the_last_instance_had_not_applied_then_only_its_own_decisions_count() {
        // given a job placed, then an exit the instance never read (above its committed offset)
        submit("j1", "lab/a", 1, 2, 60);
        List<Output> placed = pass();
        assertThat(placed).anyMatch(o -> o.value() instanceof JobEvent e && e.getPayload() instanceof JobPlaced);
        LogRestore fold = new LogRestore(CLUSTER);
        budgets.forEach(b -> fold.fact(b, true));
        nodeStatus.forEach(s -> fold.fact(s, true));
        requests.forEach(r -> fold.request(r, true));
        jobEvents.forEach(e -> fold.jobEvent(e, true));
        fold.jobEvent(new JobEvent("late", Instant.ofEpochMilli(t), "j1", null, new JobExited(nodeOf("j1"), 0, 1,
                false)), false);
        // when folded, then the job still runs: the exit is read again live, from the committed offset
        Projection rebuilt = fold.into(settings, t);
        assertThat(rebuilt.stateOf("j1")).isEqualTo(JobState.RUNNING);
        assertThat(rebuilt.runningPlacements()).isEqualTo(live.runningPlacements());
    }
}
