package dev.allot.core.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.NodeSpec;
import dev.allot.core.Scheduler;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.ordering.DebugLane;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded random worlds (every failure names its seed): a few nodes of mixed sizes, teams under one
 * root, jobs drawn from a few request templates (so the same account often queues identical
 * requests), finishes, checkpoints and drains between passes, learned run times; then one estimate.
 * Invariants: every waiting job has an estimate, in queue order, within [now, now + horizon]; the
 * live core reads the same before and after; every job the live core's next pass would place is
 * estimated to start now; the same state gives the same estimates.
 *
 * <p>Not an invariant, so not asserted: that of two identical requests of one account the one ahead
 * in the queue is never estimated after the other: 5 of these 80 worlds break it, and since every
 * placement of the forward run is one of the core's own passes, it is the core's order, not the
 * estimator's (which of the core's rules lets the job behind through was not analysed).
 */
class StartEstimatorPropertiesTest {
    private static final int SEEDS = 80;
    private static final long MIN = 60_000L;
    private static final long HOUR = 60 * MIN;
    private static final long T0 = 1_700_000_000_000L;
    private static final int[][] SHAPES = {{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 4}, {2, 8}};
    private static final long[] MIN_RUNTIMES = {0, 10 * MIN, HOUR, 8 * HOUR};
    private static final long[] DURATIONS = {-1, -1, HOUR, 3 * HOUR};

    @TestFactory
    Stream<DynamicTest> estimatesHoldTheirInvariants() {
        return LongStream.rangeClosed(1, SEEDS).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed,
                () -> check(seed)));
    }

    private static void check(long seed) {
        Random rnd = new Random(seed);
        Scheduler s = new Scheduler(SchedulerConfig.defaults().withWindow(6 * HOUR, 15 * MIN)
                .withDebugLane(new DebugLane(15 * MIN, 8, 8, 3)));
        LearnedRunTimes runTimes = new LearnedRunTimes(2 * HOUR);
        long now = T0;
        s.defineBudget(now, "org", null, 1);
        int teams = 2 + rnd.nextInt(3);
        for (int t = 0; t < teams; t++) {
            s.defineBudget(now, "t" + t, "org", 1 + rnd.nextInt(4));
        }
        int nodes = 2 + rnd.nextInt(6);
        int[] sizes = {4, 8, 8};
        for (int i = 0; i < nodes; i++) {
            s.registerNode(now, new NodeSpec("c1", String.format("n%02d", i), sizes[rnd.nextInt(sizes.length)]));
        }
        List<JobRequest> templates = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            int[] shape = SHAPES[rnd.nextInt(SHAPES.length)];
            templates.add(new JobRequest("t", "t", "c1", shape[0], shape[1], MIN_RUNTIMES[rnd.nextInt(MIN_RUNTIMES.length)],
                    rnd.nextBoolean(), 0, 0, DURATIONS[rnd.nextInt(DURATIONS.length)]));
        }
        int seq = 0;
        int steps = 10 + rnd.nextInt(30);
        for (int step = 0; step < steps; step++) {
            now += (1 + rnd.nextInt(40)) * MIN;
            for (int e = rnd.nextInt(5); e > 0; e--) {
                JobRequest t = templates.get(rnd.nextInt(templates.size()));
                String team = "t" + rnd.nextInt(teams);
                s.submit(now, new JobRequest(String.format("j%03d", seq++), team, "c1", t.replicas(), t.gpusPerReplica(),
                        t.minRuntimeMillis(), t.resumable(), 0, now, t.expectedDurationMillis()));
            }
            List<JobView> running = s.jobs().stream().filter(j -> j.state() == JobState.RUNNING).toList();
            if (!running.isEmpty() && rnd.nextInt(3) == 0) {
                JobView j = running.get(rnd.nextInt(running.size()));
                runTimes.observe(j.request(), now - j.placedAtMillis());
                s.jobFinished(now, j.jobId());
            }
            if (!running.isEmpty() && rnd.nextInt(4) == 0) {
                s.jobCheckpointed(now, running.get(rnd.nextInt(running.size())).jobId());
            }
            if (rnd.nextInt(15) == 0) {
                s.drainNode(now, String.format("n%02d", rnd.nextInt(nodes)));
            }
            s.schedule(now);
        }
        now += rnd.nextInt(20) * MIN;
        s.advanceTo(now);
        long horizon = 2 * 24 * HOUR;
        String before = StartEstimatorTest.describe(s);

        Map<String, StartEstimate> est = new StartEstimator(runTimes, horizon).estimate(s);

        assertThat(StartEstimatorTest.describe(s)).as("live core, seed " + seed).isEqualTo(before);
        List<JobView> queue = s.waiting("c1");
        assertThat(est.keySet()).as("seed " + seed).containsExactlyElementsOf(queue.stream().map(JobView::jobId).toList());
        for (StartEstimate e : est.values()) {
            assertThat(e.expectedStartMillis()).as(e + ", seed " + seed).isBetween(now, now + horizon);
        }
        // what the live core's next pass would place now starts now
        for (dev.allot.core.Decision d : s.copy().schedule(now)) {
            if (d instanceof dev.allot.core.Decision.Place p) {
                assertThat(est.get(p.jobId()).expectedStartMillis()).as(p.jobId() + ", seed " + seed).isEqualTo(now);
            }
        }
        // and the same state gives the same estimates
        assertThat(new StartEstimator(runTimes, horizon).estimate(s)).as("seed " + seed).isEqualTo(est);
    }
}
