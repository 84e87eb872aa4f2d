package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.core.estimate.RunTimeModel;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.estimate.StartEstimator;
import dev.allot.schemas.JobState;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartEstimateBasis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The expected starts as the scheduler-service publishes them: computed by the core's
 * {@link StartEstimator} on the projection's core at most once per interval, carried field by field
 * into the queue snapshot; the forward run on the estimates thread, one at a time, while the caller
 * goes on; the run-time model fed by every completed run.
 */
class StartEstimatesTest {

    static final String CLUSTER = "unit";
    static final Settings.Estimates ESTIMATES = new Settings.Estimates(Duration.ofSeconds(10), Duration.ofDays(2),
            Duration.ofMinutes(30));
    Projection projection;
    List<Output> out = new ArrayList<>();
    long t = 1_700_000_000_000L;

    @BeforeEach
    void given_one_8_gpu_node_and_a_budget_tree() {
        projection = new Projection(Settings.of("unused:9092", "http://unused", CLUSTER).withEstimates(ESTIMATES));
        apply(new Input.DefineBudget(t, "lab", null, 1));
        apply(new Input.DefineBudget(t, "lab/a", "lab", 1));
        apply(new Input.DefineBudget(t, "lab/b", "lab", 1));
        apply(new Input.RegisterNode(t, "n1", 8, 1));
    }

    void apply(Input input) {
        projection.apply(input, out);
    }

    void submit(String id, String budget, int gpus, Long expectedSeconds) {
        t++;
        projection.apply(new Input.Submit(t, id, budget, "me", CLUSTER, 1, gpus, 60, true, 0, List.of("sleep", "1"),
                Map.of(), expectedSeconds, t), out);
    }

    void pass() {
        projection.pass(++t, out);
    }

    QueueEntry entry(QueueSnapshot s, String jobId) {
        return s.getEntries().stream().filter(e -> e.getJobId().equals(jobId)).findFirst().orElseThrow();
    }

    @Test
    void given_jobs_waiting_behind_a_full_node_when_the_estimates_are_refreshed_then_the_snapshot_carries_what_the_estimator_computes() {
        // given the node fully used by a job that declared 1 h, and two jobs that wait for the whole node
        submit("running", "lab/a", 8, 3600L);
        pass();
        submit("next", "lab/b", 8, 600L);
        submit("after", "lab/a", 8, null);
        pass();
        long now = ++t;

        // when the projection refreshes its estimates and a snapshot is made
        assertThat(projection.refreshEstimates(now)).isTrue();
        QueueSnapshot snapshot = projection.snapshot(now, 500);

        // then each waiting entry carries exactly what the core's estimator says of the same core
        Map<String, StartEstimate> computed = new StartEstimator(projection.runTimes(), ESTIMATES.horizon().toMillis())
                .estimate(projection.core());
        assertThat(computed).containsOnlyKeys("next", "after");
        for (String id : List.of("next", "after")) {
            StartEstimate e = computed.get(id);
            QueueEntry entry = entry(snapshot, id);
            assertThat(entry.getState()).isEqualTo(JobState.WAITING);
            assertThat(entry.getExpectedStartBasis()).as(id).isEqualTo(StartEstimateBasis.valueOf(e.basis().name()));
            assertThat(entry.getExpectedStart()).as(id)
                    .isEqualTo(e.beyondHorizon() ? null : Instant.ofEpochMilli(e.expectedStartMillis()));
        }
        assertThat(snapshot.getEstimatedAt()).isEqualTo(Instant.ofEpochMilli(now));
        assertThat(snapshot.getEstimateHorizonSeconds()).isEqualTo(Duration.ofDays(2).toSeconds());
        // a running job has no expected start
        QueueEntry running = entry(snapshot, "running");
        assertThat(running.getExpectedStart()).isNull();
        assertThat(running.getExpectedStartBasis()).isNull();
    }

    @Test
    void given_a_refresh_when_the_interval_has_not_passed_then_no_other_is_due_and_a_job_that_came_since_has_no_estimate_yet() {
        submit("running", "lab/a", 8, 3600L);
        pass();
        submit("next", "lab/b", 8, null);
        pass();
        long now = ++t;
        assertThat(projection.estimatesDue(now)).isTrue();
        projection.refreshEstimates(now);

        submit("newcomer", "lab/b", 8, null);
        pass();
        assertThat(projection.estimatesDue(now + 9_999)).isFalse();
        QueueSnapshot snapshot = projection.snapshot(now + 9_999, 500);
        assertThat(entry(snapshot, "next").getExpectedStartBasis()).isNotNull();
        assertThat(entry(snapshot, "newcomer").getExpectedStartBasis()).isNull();
        assertThat(entry(snapshot, "newcomer").getExpectedStart()).isNull();
        assertThat(snapshot.getEstimatedAt()).isEqualTo(Instant.ofEpochMilli(now));

        assertThat(projection.estimatesDue(now + 10_000)).isTrue();
        projection.refreshEstimates(now + 10_000);
        assertThat(entry(projection.snapshot(now + 10_000, 500), "newcomer").getExpectedStartBasis()).isNotNull();
    }

    @Test
    void given_no_refresh_yet_or_estimates_turned_off_then_the_snapshot_says_nothing_of_expected_starts() {
        submit("running", "lab/a", 8, 3600L);
        pass();
        submit("next", "lab/b", 8, null);
        pass();
        QueueSnapshot before = projection.snapshot(++t, 500);
        assertThat(before.getEstimatedAt()).isNull();
        assertThat(before.getEstimateHorizonSeconds()).isNull();
        assertThat(entry(before, "next").getExpectedStartBasis()).isNull();

        Projection off = new Projection(Settings.of("unused:9092", "http://unused", CLUSTER)
                .withEstimates(new Settings.Estimates(Duration.ZERO, Duration.ofDays(7), Duration.ofHours(1))));
        assertThat(off.estimatesDue(t)).isFalse();
    }

    @Test
    void given_estimates_of_each_basis_when_published_then_a_time_goes_with_every_basis_but_beyond_the_horizon() {
        // given the figures a correct estimator gives for one node fully used by a job that declared D = 1 h,
        // placed at t0: the job that needs the whole node starts at t0 + D (DECLARED); one behind it rests on
        // the default run time; one does not start within the horizon
        submit("running", "lab/a", 8, 3600L);
        pass();
        long t0 = projection.core().job("running").orElseThrow().placedAtMillis();
        submit("next", "lab/b", 8, 600L);
        submit("default", "lab/a", 8, null);
        submit("far", "lab/a", 8, null);
        pass();
        long now = ++t;
        StartEstimates.Latest latest = new StartEstimates.Latest(now, Duration.ofDays(7).toMillis(), Map.of(
                "next", new StartEstimate("next", t0 + 3_600_000, StartEstimate.Basis.DECLARED),
                "default", new StartEstimate("default", t0 + 4_200_000, StartEstimate.Basis.DEFAULT),
                "far", new StartEstimate("far", now + Duration.ofDays(7).toMillis(), StartEstimate.Basis.BEYOND_HORIZON)));

        // when the snapshot is built with them
        QueueSnapshot s = QueueViews.snapshot(projection.core(), CLUSTER, List.of("running"), now, 500, latest);

        // then
        assertThat(entry(s, "next").getExpectedStart()).isEqualTo(Instant.ofEpochMilli(t0 + 3_600_000));
        assertThat(entry(s, "next").getExpectedStartBasis()).isEqualTo(StartEstimateBasis.DECLARED);
        assertThat(entry(s, "default").getExpectedStart()).isEqualTo(Instant.ofEpochMilli(t0 + 4_200_000));
        assertThat(entry(s, "default").getExpectedStartBasis()).isEqualTo(StartEstimateBasis.DEFAULT);
        assertThat(entry(s, "far").getExpectedStart()).isNull();
        assertThat(entry(s, "far").getExpectedStartBasis()).isEqualTo(StartEstimateBasis.BEYOND_HORIZON);
        assertThat(s.getEstimateHorizonSeconds()).isEqualTo(7 * 86_400L);
        assertThat(s.getEstimatedAt()).isEqualTo(Instant.ofEpochMilli(now));
        // every basis of the core has its symbol in the schema
        for (StartEstimate.Basis b : StartEstimate.Basis.values()) {
            assertThat(StartEstimateBasis.valueOf(b.name())).isNotNull();
        }
    }

    /**
     * A run-time model whose forward run waits until the test lets it go, on any thread but the test's: there it
     * notes the call and answers at once (the behaviour this guards against, a forward run on the calling thread,
     * then fails an assertion instead of blocking the test).
     */
    static final class HeldRunTimes implements RunTimeModel {
        final Thread caller = Thread.currentThread();
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        volatile boolean fail;

        @Override
        public RunTime expectedRun(dev.allot.core.JobRequest request) {
            ranOn.compareAndSet(null, Thread.currentThread());
            if (Thread.currentThread() != caller) {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (fail) {
                throw new IllegalStateException("a forward run that fails");
            }
            return new RunTime(Duration.ofHours(1).toMillis(), StartEstimate.Basis.DECLARED);
        }
    }

    @Test
    void given_a_slow_forward_run_when_the_estimates_are_refreshed_then_it_runs_on_the_estimates_thread_and_the_caller_goes_on_deciding() {
        // given a job waiting behind a full node, and estimates whose forward runs go to the estimates thread
        submit("running", "lab/a", 8, null);
        pass();
        submit("next", "lab/b", 8, null);
        pass();
        HeldRunTimes held = new HeldRunTimes();
        StartEstimates estimates = new StartEstimates(held, ESTIMATES);
        ExecutorService thread = StartEstimates.estimatesThread(CLUSTER);
        AtomicInteger timed = new AtomicInteger();
        estimates.runOn(thread, nanos -> timed.incrementAndGet());
        try {
            long copiedAt = ++t;

            // when a refresh is asked for, and its forward run is held
            assertThat(estimates.refresh(projection.core(), copiedAt)).isTrue();
            await().until(() -> held.started.getCount() == 0 || held.ranOn.get() == held.caller);

            // then the caller got back at once: the run is on the estimates thread, not the caller's
            assertThat(held.ranOn.get()).isNotSameAs(held.caller);
            assertThat(held.ranOn.get().getName()).isEqualTo("allot-estimates-" + CLUSTER);
            assertThat(held.ranOn.get().isDaemon()).isTrue();
            assertThat(estimates.latest()).isNull();
            // no second refresh starts while it runs, even once the interval has passed
            assertThat(estimates.due(copiedAt + ESTIMATES.interval().toMillis())).isFalse();
            assertThat(estimates.refresh(projection.core(), copiedAt + ESTIMATES.interval().toMillis())).isFalse();
            // and the live core goes on deciding meanwhile: the running job ends, the next one is placed, one arrives
            long placedAt = projection.core().job("running").orElseThrow().placedAtMillis();
            apply(new Input.Exited(placedAt + 60_000, "running", "n1", 0, 0, false));
            t = placedAt + 60_000;
            pass();
            assertThat(projection.core().job("next").orElseThrow().state()).isEqualTo(dev.allot.core.JobState.RUNNING);
            submit("newcomer", "lab/a", 8, null);
            pass();

            // when the forward run is let go
            held.release.countDown();
            await().until(() -> estimates.latest() != null);

            // then its figures are those of the copy: the jobs that waited then, at the copy's time
            assertThat(estimates.latest().computedAtMillis()).isEqualTo(copiedAt);
            assertThat(estimates.latest().byJob()).containsOnlyKeys("next");
            assertThat(estimates.takeUnseen()).isTrue();
            assertThat(estimates.takeUnseen()).isFalse();
            await().until(() -> timed.get() == 1 && estimates.due(copiedAt + ESTIMATES.interval().toMillis()));
        } finally {
            held.release.countDown();
            thread.shutdownNow();
        }
    }

    @Test
    void given_a_forward_run_that_took_longer_than_the_interval_when_it_ends_then_the_next_waits_as_long_again() {
        // given a forward run that takes 20 s on the estimates' clock, twice the interval
        submit("running", "lab/a", 8, null);
        pass();
        submit("next", "lab/b", 8, null);
        pass();
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        RunTimeModel slow = request -> {
            clock.compareAndSet(0, 20_000_000_000L);
            return new RunTimeModel.RunTime(Duration.ofHours(1).toMillis(), StartEstimate.Basis.DECLARED);
        };
        StartEstimates estimates = new StartEstimates(slow, ESTIMATES, clock::get);
        ExecutorService thread = StartEstimates.estimatesThread(CLUSTER);
        AtomicInteger timed = new AtomicInteger();
        estimates.runOn(thread, nanos -> timed.incrementAndGet());
        try {
            long first = ++t;
            assertThat(estimates.refresh(projection.core(), first)).isTrue();

            // when it has ended (timed last)
            await().until(() -> timed.get() == 1);
            assertThat(estimates.latest()).isNotNull();

            // then no refresh is due for another 20 s, however late the loop's clock
            long later = first + 10 * ESTIMATES.interval().toMillis();
            assertThat(estimates.due(later)).isFalse();
            clock.set(39_999_999_999L);
            assertThat(estimates.due(later)).isFalse();
            clock.set(40_000_000_000L);
            assertThat(estimates.due(later)).isTrue();
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void given_a_forward_run_that_fails_on_the_estimates_thread_then_the_previous_figures_stay_and_the_next_refresh_may_run() {
        submit("running", "lab/a", 8, null);
        pass();
        submit("next", "lab/b", 8, null);
        pass();
        HeldRunTimes held = new HeldRunTimes();
        held.release.countDown();
        StartEstimates estimates = new StartEstimates(held, ESTIMATES);
        ExecutorService thread = StartEstimates.estimatesThread(CLUSTER);
        estimates.runOn(thread, nanos -> { });
        try {
            long first = ++t;
            estimates.refresh(projection.core(), first);
            await().until(() -> estimates.latest() != null && estimates.due(first + ESTIMATES.interval().toMillis()));
            StartEstimates.Latest published = estimates.latest();
            estimates.takeUnseen();

            held.fail = true;
            long second = first + ESTIMATES.interval().toMillis();
            assertThat(estimates.refresh(projection.core(), second)).isTrue();
            await().until(() -> estimates.due(second + ESTIMATES.interval().toMillis()));

            assertThat(estimates.latest()).isSameAs(published);
            assertThat(estimates.takeUnseen()).isFalse();
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void given_jobs_that_complete_fail_or_are_cancelled_then_only_completed_runs_are_learned_with_their_run_time() {
        submit("done", "lab/a", 4, null);
        submit("failed", "lab/b", 4, null);
        pass();
        long placedAt = projection.core().job("done").orElseThrow().placedAtMillis();
        long exitAt = placedAt + 90_000;
        apply(new Input.Exited(exitAt, "done", "n1", 0, 0, false));
        apply(new Input.Exited(exitAt + 1, "failed", "n1", 0, 3, false));
        t = exitAt + 10;
        submit("cancelled", "lab/a", 8, null);
        pass();
        apply(new Input.Cancel(++t + 200_000, "cancelled", "me", null));

        assertThat(projection.stateOf("done")).isEqualTo(JobState.COMPLETED);
        assertThat(projection.stateOf("failed")).isEqualTo(JobState.FAILED);
        assertThat(projection.learned()).isEqualTo(new Projection.Learned(1, 90_000));
    }
}
