package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static dev.allot.core.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Scheduler#restore}: a core rebuilt from the log holds what the earlier one held, and decides from there. */
class RestoreTest {

    static final long PLACED = T0 - 2 * HOUR;

    /** A fresh core with team a and b and two 8-GPU nodes, as a service rebuilding from the log starts. */
    static Fixture fresh() {
        return new Fixture().at(T0 - 24 * HOUR).teams("a", "b").nodes("c1", 2, 8).at(T0);
    }

    static JobRequest job(String id, String account, int replicas, int gpus, long minRuntime, long submitted) {
        return JobRequest.of(id, account, "c1", replicas, gpus, minRuntime, true, submitted);
    }

    @Test
    void given_a_restored_running_job_when_new_jobs_arrive_then_they_get_only_the_free_gpus() {
        // given a job restored on GPUs 2,3,4,5 of node 0 and one on all of node 1
        Fixture f = fresh();
        f.s.restore(f.now, RestoredJob.running(job("old", "a", 1, 4, HOUR, PLACED - MIN), PLACED - MIN, 0,
                List.of(new ReplicaPlacement("c1-n000", 0, List.of(2, 3, 4, 5))), PLACED, -1, false));
        f.s.restore(f.now, RestoredJob.running(job("wide", "b", 1, 8, 8 * HOUR, PLACED), PLACED, 0,
                List.of(new ReplicaPlacement("c1-n001", 0, List.of(0, 1, 2, 3, 4, 5, 6, 7))), PLACED, -1, false));
        // when a 4-GPU job and a 2-GPU job arrive
        f.submit("new4", "a", 1, 4, HOUR, true).advance(1).submit("new2", "b", 1, 2, HOUR, true);
        List<Decision> d = f.schedule();
        // then the restored jobs keep their GPUs, one new job gets the 4 free GPUs of node 0, the other waits
        assertThat(f.s.job("old").orElseThrow().placement()).singleElement()
                .satisfies(r -> assertThat(r.gpuIndices()).containsExactly(2, 3, 4, 5));
        assertThat(f.s.job("old").orElseThrow().placedAtMillis()).isEqualTo(PLACED);
        assertThat(Fixture.only(d, Decision.Preempt.class)).isEmpty();
        Decision.Place p = Fixture.only(d, Decision.Place.class).get(0);
        assertThat(p.replicas().get(0).nodeId()).isEqualTo("c1-n000");
        assertThat(p.replicas().get(0).gpuIndices()).containsExactly(0, 1, 6, 7);
        assertThat(Fixture.only(d, Decision.Place.class)).hasSize(1);
        assertThat(f.s.node("c1-n000").orElseThrow().freeGpus()).isZero();
    }

    @Test
    void given_gpus_held_when_a_restore_asks_for_them_then_it_is_refused_and_nothing_changes() {
        // given a job restored on GPUs 0-3 of node 0
        Fixture f = fresh();
        f.s.restore(f.now, RestoredJob.running(job("first", "a", 1, 4, HOUR, PLACED), PLACED, 0,
                List.of(new ReplicaPlacement("c1-n000", 0, List.of(0, 1, 2, 3))), PLACED, -1, false));
        // when a gang is restored with one replica on a free node and one on GPU 3 of node 0
        RestoredJob clash = RestoredJob.running(job("second", "b", 2, 4, HOUR, PLACED), PLACED, 0, List.of(
                new ReplicaPlacement("c1-n001", 0, List.of(0, 1, 2, 3)),
                new ReplicaPlacement("c1-n000", 0, List.of(3, 4, 5, 6))), PLACED, -1, false);
        // then it is refused, and the free node stays free
        assertThatThrownBy(() -> f.s.restore(f.now, clash)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("GPU 3");
        assertThat(f.s.job("second")).isEmpty();
        assertThat(f.s.node("c1-n001").orElseThrow().freeGpus()).isEqualTo(8);
        // and unknown nodes and known ids are refused too
        assertThatThrownBy(() -> f.s.restore(f.now, RestoredJob.running(job("x", "a", 1, 1, 0, PLACED), PLACED, 0,
                List.of(new ReplicaPlacement("nowhere", 0, List.of(0))), PLACED, -1, false)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nowhere");
        assertThatThrownBy(() -> f.s.restore(f.now, RestoredJob.waiting(job("first", "a", 1, 1, 0, PLACED), PLACED, 0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void given_restored_waiting_jobs_then_they_keep_their_queue_time_and_requeues() {
        // given team a's job restored waiting since long ago (requeued twice) and a newer one submitted now
        Fixture f = fresh();
        f.s.restore(f.now, RestoredJob.running(job("block", "b", 2, 8, 8 * HOUR, PLACED), PLACED, 0, List.of(
                new ReplicaPlacement("c1-n000", 0, List.of(0, 1, 2, 3, 4, 5, 6, 7)),
                new ReplicaPlacement("c1-n001", 0, List.of(0, 1, 2, 3, 4, 5, 6, 7))), PLACED, -1, false));
        f.s.restore(f.now, RestoredJob.waiting(job("early", "a", 1, 8, HOUR, T0 - 5 * HOUR), T0 - 3 * HOUR, 2));
        f.submit("late", "a", 1, 8, HOUR, true);
        f.schedule();
        // then the restored one is first in its team's queue, with its queue time and requeue count
        assertThat(f.s.waiting("c1")).extracting(JobView::jobId).containsExactly("early", "late");
        JobView early = f.s.job("early").orElseThrow();
        assertThat(early.queuedSinceMillis()).isEqualTo(T0 - 3 * HOUR);
        assertThat(early.requeues()).isEqualTo(2);
    }

    @Test
    void given_restored_runs_then_their_protected_windows_and_lost_work_count_from_the_log() {
        // given one allocated job placed 2 h ago with a 1 h minimum runtime (checkpointed 30 min ago),
        // and one placed 10 min ago with the same contract, each filling a node
        Fixture f = fresh();
        f.s.restore(f.now, RestoredJob.running(job("expired", "a", 1, 8, HOUR, PLACED), PLACED, 0,
                List.of(new ReplicaPlacement("c1-n000", 0, List.of(0, 1, 2, 3, 4, 5, 6, 7))), PLACED,
                T0 - 30 * MIN, false));
        f.s.restore(f.now, RestoredJob.running(job("young", "a", 1, 8, HOUR, T0 - 10 * MIN), T0 - 10 * MIN, 0,
                List.of(new ReplicaPlacement("c1-n001", 0, List.of(0, 1, 2, 3, 4, 5, 6, 7))), T0 - 10 * MIN, -1,
                false));
        // when team b, which used nothing, needs a node while team a used 1,000 GPU-hours in the window
        f.s.recordUsage(new UsageRecord("a", "c1", T0 - HOUR, T0, 1000 * 3600.0, true));
        f.submit("b-job", "b", 1, 8, HOUR, true);
        List<Decision> d = f.schedule();
        // then only the job past its protected window is preempted, losing the work since its checkpoint
        Decision.Preempt p = Fixture.only(d, Decision.Preempt.class).get(0);
        assertThat(p.jobId()).isEqualTo("expired");
        assertThat(p.lostGpuSeconds()).isEqualTo(8 * 30 * 60.0);
        assertThat(f.s.job("young").orElseThrow().protectedUntilMillis()).isEqualTo(T0 + 50 * MIN);
        assertThat(f.s.job("expired").orElseThrow().requeues()).isEqualTo(1);
    }
}
