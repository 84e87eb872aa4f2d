package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The projection without Kafka: inputs in, events and commands out (unit level; the Kafka tests prove the loop). */
class ProjectionTest {

    static final String CLUSTER = "unit";
    Projection projection;
    List<Output> out;
    long t = 1_000_000;

    @BeforeEach
    void given_a_cluster_of_two_8_gpu_nodes_and_a_budget_tree() {
        projection = new Projection(Settings.of("unused:9092", "http://unused", CLUSTER));
        out = new ArrayList<>();
        apply(new Input.DefineBudget(t, "lab", null, 1));
        apply(new Input.DefineBudget(t, "lab/a", "lab", 1));
        apply(new Input.DefineBudget(t, "lab/b", "lab", 1));
        apply(new Input.RegisterNode(t, "n1", 8, 7));
        apply(new Input.RegisterNode(t, "n2", 8, 3));
    }

    /** A gang of 2 x 1 GPU of lab/a placed, with the placement's records cleared from {@code out}. */
    private void givenRunningGang(String jobId) {
        apply(job(jobId, "lab/a", 2, 1, 60));
        pass();
        out.clear();
    }

    /** The agent epochs the nodes registered with. */
    static long epochOf(String node) {
        return node.equals("n1") ? 7 : 3;
    }

    void apply(Input input) {
        projection.apply(input, out);
    }

    Input.Submit job(String id, String budget, int replicas, int gpus, long minRuntimeSeconds) {
        return new Input.Submit(++t, id, budget, "me", CLUSTER, replicas, gpus, minRuntimeSeconds, true, 0,
                List.of("sleep", "1"), Map.of("A", "1"), null, t);
    }

    List<Output> pass() {
        out.clear();
        projection.pass(++t, out);
        return out;
    }

    static <T> List<T> payloads(List<Output> outs, Class<T> type) {
        List<T> found = new ArrayList<>();
        for (Output o : outs) {
            Object p = o.value() instanceof JobEvent e ? e.getPayload()
                    : o.value() instanceof NodeCommand c ? c.getPayload()
                    : o.value() instanceof dev.allot.schemas.NodeStatus n ? n.getPayload() : o.value();
            if (type.isInstance(p)) {
                found.add(type.cast(p));
            }
        }
        return found;
    }

    @Test
    void given_a_gang_when_placed_then_one_start_per_replica_on_distinct_nodes_with_the_agents_epochs() {
        apply(job("j1", "lab/a", 2, 4, 60));
        List<Output> decided = pass();
        List<StartJob> starts = payloads(decided, StartJob.class);
        assertThat(starts).hasSize(2);
        assertThat(starts).extracting(StartJob::getNodeId).containsExactlyInAnyOrder("n1", "n2");
        assertThat(starts).allSatisfy(s -> assertThat(s.getGpuIndices()).hasSize(4));
        assertThat(starts).allSatisfy(s -> assertThat(s.getNodeEpoch()).isEqualTo(s.getNodeId().equals("n1") ? 7 : 3));
        JobPlaced placed = payloads(decided, JobPlaced.class).get(0);
        assertThat(placed.getAttempt()).isEqualTo(1);
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void given_invalid_submissions_when_applied_then_each_is_rejected_naming_its_field() {
        apply(job("bad-account", "nope", 1, 1, 0));
        apply(job("inner-account", "lab", 1, 1, 0));
        apply(job("too-long", "lab/a", 1, 1, 9 * 3600));
        apply(job("negative", "lab/a", 1, 1, -1));
        apply(job("too-wide", "lab/a", 1, 9, 0));
        apply(job("too-many", "lab/a", 3, 1, 0));
        apply(job("no-replicas", "lab/a", 0, 1, 0));
        List<JobRejected> rejected = payloads(out, JobRejected.class);
        assertThat(rejected).extracting(JobRejected::getField).containsExactly("budget", "budget",
                "minRuntimeSeconds", "minRuntimeSeconds", "gpusPerReplica", "replicas", "replicas");
    }

    @Test
    void given_a_running_gang_when_every_replica_exits_0_then_completed() {
        givenRunningGang("j1");
        apply(new Input.Exited(++t, "j1", "n1", 0, 0, false));
        assertThat(payloads(out, JobCompleted.class)).isEmpty();
        apply(new Input.Exited(++t, "j1", "n2", 1, 0, false));
        assertThat(payloads(out, JobCompleted.class)).hasSize(1);
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void given_a_running_gang_when_a_replica_fails_then_the_others_are_stopped_and_the_job_fails() {
        givenRunningGang("j1");
        apply(new Input.Exited(++t, "j1", "n1", 0, 3, false));
        assertThat(payloads(out, JobFailed.class)).singleElement()
                .satisfies(f -> assertThat(f.getExitCode()).isEqualTo(3));
        assertThat(payloads(out, StopJob.class)).singleElement().satisfies(s -> {
            assertThat(s.getNodeId()).isEqualTo("n2");
            assertThat(s.getReason()).isEqualTo(StopReason.GANG_FAILED);
        });
        out.clear();
        apply(new Input.Exited(++t, "j1", "n2", 1, 143, true));
        assertThat(out).isEmpty();
    }

    @Test
    void given_an_unallocated_job_on_a_full_cluster_when_an_allocated_job_arrives_then_it_is_preempted_and_the_newcomer_placed() {
        apply(job("free", "lab/a", 2, 8, 0));
        pass();
        apply(job("paid", "lab/b", 2, 8, 600));
        List<Output> decided = pass();
        assertThat(payloads(decided, StopJob.class)).hasSize(2)
                .allSatisfy(s -> assertThat(s.getReason()).isEqualTo(StopReason.PREEMPTED));
        JobPreempted preempted = payloads(decided, JobPreempted.class).get(0);
        assertThat(preempted.getReason()).isEqualTo(PreemptionReason.UNALLOCATED_DISPLACED);
        assertThat(preempted.getPreemptorJobId()).isEqualTo("paid");
        assertThat(payloads(decided, JobPlaced.class)).hasSize(1);
        assertThat(projection.stateOf("free")).isEqualTo(JobState.WAITING);
        // The preempted replicas' exits are expected, not verdicts.
        out.clear();
        apply(new Input.Exited(++t, "free", "n1", 0, 143, true));
        assertThat(out).isEmpty();
    }

    @Test
    void given_a_job_preempted_just_after_its_placement_when_it_reports_it_had_exited_0_by_itself_then_it_is_completed_not_run_again() {
        // issue 12, lever 5: a short unallocated job, displaced 20 ms after its placement, had already run
        // to exit 0; its exit (stopped=false: it ended before the stop reached it) arrives after the preemption.
        apply(job("short", "lab/a", 1, 8, 0));
        apply(job("free", "lab/a", 1, 8, 0));
        String node = payloads(pass(), StartJob.class).stream().filter(s -> s.getJobId().equals("short"))
                .findFirst().orElseThrow().getNodeId();
        apply(job("paid", "lab/b", 2, 8, 600));
        List<Output> decided = pass();
        assertThat(payloads(decided, JobPreempted.class)).hasSize(2);
        assertThat(projection.stateOf("short")).isEqualTo(JobState.WAITING);
        out.clear();

        apply(new Input.Exited(++t, "short", node, 0, 0, false));

        assertThat(payloads(out, JobCompleted.class)).hasSize(1);
        assertThat(projection.stateOf("short")).isEqualTo(JobState.COMPLETED);
        assertThat(projection.core().waiting(CLUSTER)).extracting(dev.allot.core.JobView::jobId)
                .doesNotContain("short").contains("free");
        // ... and when the paid job ends, only the other preempted job runs again.
        apply(new Input.Exited(++t, "paid", "n1", 0, 0, false));
        apply(new Input.Exited(++t, "paid", "n2", 1, 0, false));
        assertThat(payloads(pass(), StartJob.class)).extracting(StartJob::getJobId).containsOnly("free");
        // A preempted replica that a stop ended (stopped=true), even with exit 0 after a checkpoint, is requeued.
        out.clear();
        apply(new Input.Exited(++t, "free", "n9", 0, 0, true));
        assertThat(payloads(out, JobCompleted.class)).isEmpty();
    }

    @Test
    void given_a_job_stopped_by_its_preemption_with_exit_0_when_reported_then_it_waits_to_run_again() {
        apply(job("free", "lab/a", 2, 8, 0));
        pass();
        apply(job("paid", "lab/b", 2, 8, 600));
        pass();
        out.clear();

        // It checkpointed on notice and exited 0 after the SIGTERM: stopped, not finished.
        apply(new Input.Exited(++t, "free", "n1", 0, 0, true));
        apply(new Input.Exited(++t, "free", "n2", 1, 0, true));

        assertThat(out).isEmpty();
        assertThat(projection.stateOf("free")).isEqualTo(JobState.WAITING);
    }

    @Test
    void given_a_node_lost_while_its_job_ran_when_the_returning_agent_reports_the_job_exited_0_then_it_is_completed() {
        // issue 14: the job ended 0 while its agent was down; the agent, restarted, reports its real status.
        apply(job("j1", "lab/a", 1, 8, 60));
        apply(job("big", "lab/b", 1, 8, 60)); // keeps the other node busy: j1 cannot be placed again at once
        String node = payloads(pass(), StartJob.class).stream().filter(s -> s.getJobId().equals("j1"))
                .findFirst().orElseThrow().getNodeId();
        apply(new Input.NodeLost(++t, node));
        pass();
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.WAITING);
        out.clear();

        apply(new Input.Exited(++t, "j1", node, 0, 0, false));

        assertThat(payloads(out, JobCompleted.class)).hasSize(1);
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void given_a_job_placed_again_after_a_node_loss_when_the_first_run_reports_exit_0_then_it_completes_and_the_new_run_stops() {
        apply(job("j1", "lab/a", 1, 8, 60));
        String first = payloads(pass(), StartJob.class).get(0).getNodeId();
        apply(new Input.NodeLost(++t, first));
        out.clear();
        projection.pass(++t, out);
        String again = payloads(out, StartJob.class).get(0).getNodeId();
        out.clear();

        apply(new Input.Exited(++t, "j1", first, 0, 0, false));

        assertThat(payloads(out, StopJob.class)).singleElement().satisfies(s -> {
            assertThat(s.getNodeId()).isEqualTo(again);
            assertThat(s.getReason()).isEqualTo(StopReason.NOT_ASSIGNED);
        });
        assertThat(payloads(out, JobCompleted.class)).hasSize(1);
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.COMPLETED);
        // the new run's stopped exit is expected, not a verdict
        out.clear();
        apply(new Input.Exited(++t, "j1", again, 0, 143, true));
        assertThat(out).isEmpty();
    }

    @Test
    void given_a_running_job_when_cancelled_then_its_replicas_are_stopped_and_it_ends_cancelled() {
        givenRunningGang("j1");
        apply(new Input.Cancel(++t, "j1", "alice", "wrong input"));
        assertThat(payloads(out, StopJob.class)).hasSize(2)
                .allSatisfy(s -> assertThat(s.getReason()).isEqualTo(StopReason.CANCELLED));
        assertThat(out).filteredOn(o -> o.value() instanceof JobEvent).singleElement()
                .satisfies(o -> assertThat(((JobEvent) o.value()).getStateAfter()).isEqualTo(JobState.CANCELLED));
        assertThat(projection.runningCount()).isZero();
    }

    @Test
    void given_a_draining_node_with_an_unallocated_job_when_a_pass_runs_then_the_job_is_released_and_the_node_reported_drained() {
        apply(job("j1", "lab/a", 1, 8, 0));
        List<StartJob> started = payloads(pass(), StartJob.class);
        String node = started.get(0).getNodeId();
        apply(new Input.Drain(++t, node, "ops"));
        List<Output> first = pass();
        assertThat(payloads(first, StopJob.class)).singleElement()
                .satisfies(s -> assertThat(s.getReason()).isEqualTo(StopReason.DRAIN));
        List<Output> all = new ArrayList<>(first);
        all.addAll(pass());
        assertThat(payloads(all, dev.allot.schemas.NodeDrained.class)).hasSize(1);
        assertThat(all).anySatisfy(o -> assertThat(o.topic()).isEqualTo("node-status"));
    }

    @Test
    void given_a_silent_node_when_its_heartbeats_are_overdue_then_it_is_lost_and_its_jobs_requeued() {
        apply(job("j1", "lab/a", 1, 8, 60));
        String node = payloads(pass(), StartJob.class).get(0).getNodeId();
        long later = t + Settings.of("x", "y", CLUSTER).lostAfter().toMillis() + 1;
        List<Input> lost = projection.silentNodes(later);
        assertThat(lost).hasSize(2).allSatisfy(i -> assertThat(i).isInstanceOf(Input.NodeLost.class)); // no heartbeats
        lost.forEach(this::apply);
        List<Output> decided = pass();
        assertThat(payloads(decided, dev.allot.schemas.JobLost.class)).singleElement()
                .satisfies(l -> assertThat(l.getNodeId()).isEqualTo(node));
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.WAITING);
        // The lost node is told to kill the stale replica (it reads its commands when it comes back).
        assertThat(payloads(decided, StopJob.class)).singleElement()
                .satisfies(s -> assertThat(s.getReason()).isEqualTo(StopReason.FENCED));
        // It comes back: it registers afresh (fenced, empty); the stop is not repeated.
        out.clear();
        List<Input> journaled = projection.apply(new Input.Heartbeat(++t, node, 7, List.of("j1")), out);
        assertThat(journaled).singleElement().isInstanceOf(Input.RegisterNode.class);
        assertThat(out).isEmpty();
        assertThat(projection.core().node(node).orElseThrow().lost()).isFalse();
        // A replica it runs that nobody assigned to it is stopped; the heartbeat itself is not journaled.
        assertThat(projection.apply(new Input.Heartbeat(++t, node, 7, List.of("stranger")), out)).isEmpty();
        assertThat(payloads(out, StopJob.class)).singleElement()
                .satisfies(s -> assertThat(s.getReason()).isEqualTo(StopReason.NOT_ASSIGNED));
    }
    @Test
    void given_a_resumable_job_that_checkpointed_when_preempted_then_the_work_lost_counts_from_its_checkpoint() {
        apply(job("free", "lab/a", 2, 8, 0));
        pass();
        t += 10_000;
        apply(new Input.Checkpointed(t, "free", "n1"));
        t += 20_000 - 2; // job() and pass() each move the clock 1 ms: the pass is 20 s after the checkpoint
        apply(job("paid", "lab/b", 2, 8, 600));

        List<Output> decided = pass();

        assertThat(payloads(decided, JobPreempted.class)).singleElement()
                .satisfies(p -> assertThat(p.getLostGpuSeconds()).isEqualTo(16 * 20.0));
    }

    @Test
    void given_an_allocated_job_requeued_after_a_node_loss_when_it_completes_then_both_runs_are_charged() {
        apply(job("j1", "lab/a", 1, 8, 60));
        String first = payloads(pass(), StartJob.class).get(0).getNodeId();
        t += 5_000;
        apply(new Input.NodeLost(t, first));
        out.clear();
        projection.pass(t, out); // requeued and placed again on the other node, in the same pass
        StartJob again = payloads(out, StartJob.class).get(0);
        assertThat(again.getNodeId()).isNotEqualTo(first);
        assertThat(again.getRestartCount()).isEqualTo(1);
        out.clear();
        t += 7_000;

        apply(new Input.Exited(t, "j1", again.getNodeId(), 0, 0, false));

        assertThat(payloads(out, JobCompleted.class)).singleElement()
                .satisfies(c -> assertThat(c.getChargedGpuSeconds()).isEqualTo(8 * 5.0 + 8 * 7.0));
    }

    @Test
    void given_two_nodes_of_one_agent_falling_silent_apart_when_the_first_is_lost_then_its_job_waits_for_a_node_heard_from() {
        // issue 14 (AgentRestartEndToEndTest): one agent runs both nodes; it is killed. Its last heartbeats
        // were 250 ms apart, so the two losses fall in different ticks. The job requeued by the first loss
        // must not go to the other node, which is lost a tick later (a second loss, a third placement).
        long lostAfter = Settings.of("x", "y", CLUSTER).lostAfter().toMillis();
        apply(job("j1", "lab/a", 1, 8, 60));
        String first = payloads(pass(), StartJob.class).get(0).getNodeId();
        String second = first.equals("n1") ? "n2" : "n1";
        long killed = ++t;
        apply(new Input.Heartbeat(killed, first, epochOf(first), List.of("j1")));
        apply(new Input.Heartbeat(killed + 250, second, epochOf(second), List.of()));

        List<Input> silentAWhile = projection.silentNodes(killed + lostAfter / 2);
        silentAWhile.forEach(this::apply);
        List<Input> firstLost = projection.silentNodes(killed + lostAfter + 1);
        firstLost.forEach(this::apply);
        out.clear();
        projection.pass(killed + lostAfter + 1, out);

        assertThat(silentAWhile).containsExactly(new Input.NodeUnreachable(killed + lostAfter / 2, "n1"),
                new Input.NodeUnreachable(killed + lostAfter / 2, "n2"));
        assertThat(firstLost).containsExactly(new Input.NodeLost(killed + lostAfter + 1, first));
        assertThat(payloads(out, dev.allot.schemas.JobLost.class)).hasSize(1);
        assertThat(payloads(out, StartJob.class)).isEmpty();
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.WAITING);

        // The second node is heard from again (its agent is back within lost-after): it takes the job.
        t = killed + lostAfter + 2;
        List<Input> journaled = projection.apply(new Input.Heartbeat(t, second, epochOf(second),
                List.of()), out);
        assertThat(journaled).singleElement().isInstanceOf(Input.Heartbeat.class);
        assertThat(projection.core().node(second).orElseThrow().unreachable()).isFalse();
        assertThat(payloads(pass(), StartJob.class)).singleElement()
                .satisfies(s -> assertThat(s.getNodeId()).isEqualTo(second));
    }

    @Test
    void given_an_unreachable_node_running_a_job_when_heard_from_before_lost_after_then_the_job_runs_on_untouched() {
        long lostAfter = Settings.of("x", "y", CLUSTER).lostAfter().toMillis();
        apply(job("j1", "lab/a", 1, 8, 60));
        String node = payloads(pass(), StartJob.class).get(0).getNodeId();
        long heard = ++t;
        apply(new Input.Heartbeat(heard, "n1", 7, node.equals("n1") ? List.of("j1") : List.of()));
        apply(new Input.Heartbeat(heard, "n2", 3, node.equals("n2") ? List.of("j1") : List.of()));

        projection.silentNodes(heard + lostAfter - 1).forEach(this::apply);
        List<Output> whileSilent = new ArrayList<>();
        projection.pass(heard + lostAfter - 1, whileSilent);
        t = heard + lostAfter;
        out.clear();
        projection.apply(new Input.Heartbeat(t, node, 7, List.of("j1")), out);

        assertThat(payloads(whileSilent, dev.allot.schemas.JobLost.class)).isEmpty();
        assertThat(payloads(whileSilent, StopJob.class)).isEmpty();
        assertThat(out).isEmpty(); // no stray stop: the job is still assigned to the node
        assertThat(projection.stateOf("j1")).isEqualTo(JobState.RUNNING);
        assertThat(projection.silentNodes(heard + lostAfter + 1))
                .containsExactly(new Input.NodeLost(heard + lostAfter + 1, node.equals("n1") ? "n2" : "n1"));
    }
}
