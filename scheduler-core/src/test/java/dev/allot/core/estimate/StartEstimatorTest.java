package dev.allot.core.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.Decision;
import dev.allot.core.JobRequest;
import dev.allot.core.NodeSpec;
import dev.allot.core.Scheduler;
import dev.allot.core.estimate.StartEstimate.Basis;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The forward run on small hand-made worlds whose answer is known. */
class StartEstimatorTest {
    static final long T0 = 1_700_000_000_000L;
    static final long MIN = 60_000L;
    static final long HOUR = 60 * MIN;
    static final long DAY = 24 * HOUR;

    private final Scheduler s = new Scheduler();
    private final LearnedRunTimes runTimes = new LearnedRunTimes(4 * HOUR);
    private final StartEstimator estimator = new StartEstimator(runTimes, 2 * DAY);

    private void world(int nodes, String... teams) {
        s.defineBudget(T0, "org", null, 1);
        for (String t : teams) {
            s.defineBudget(T0, t, "org", 1);
        }
        for (int i = 0; i < nodes; i++) {
            s.registerNode(T0, new NodeSpec("c1", String.format("n%02d", i), 8));
        }
    }

    private static JobRequest job(String id, String team, int replicas, int gpus, long minRuntime, long declared,
            long at) {
        return new JobRequest(id, team, "c1", replicas, gpus, minRuntime, true, 0, at, declared);
    }

    private List<Decision> submitAndPass(long at, JobRequest... requests) {
        for (JobRequest r : requests) {
            s.submit(at, r);
        }
        return s.schedule(at);
    }

    @Test
    void aWaitingJobStartsWhenTheDeclaredRunAheadOfItEnds() {
        // given one 8-GPU node running a job declared for 1 h, and an 8-GPU job waiting
        world(1, "a");
        submitAndPass(T0, job("run", "a", 1, 8, HOUR, HOUR, T0));
        submitAndPass(T0 + 10 * MIN, job("wait", "a", 1, 8, HOUR, HOUR, T0 + 10 * MIN));

        // when
        Map<String, StartEstimate> e = estimator.estimate(s);

        // then it starts when the running one ends, on declared figures only
        assertThat(e).containsOnlyKeys("wait");
        assertThat(e.get("wait")).isEqualTo(new StartEstimate("wait", T0 + HOUR, Basis.DECLARED));
    }

    @Test
    void knownArrivalsRankedAheadDelayTheStartAndPastOnesAreLeftOut() {
        // given one 8-GPU node running a's job declared for 1 h, a's 8-GPU job waiting behind it,
        // and team b (nothing used: ranked ahead of a) known to submit an 8-GPU job for 2 h in 30 min
        world(1, "a", "b");
        submitAndPass(T0, job("run", "a", 1, 8, HOUR, HOUR, T0));
        submitAndPass(T0 + 10 * MIN, job("wait", "a", 1, 8, HOUR, HOUR, T0 + 10 * MIN));
        JobRequest later = job("b1", "b", 1, 8, HOUR, 2 * HOUR, T0 + 40 * MIN);
        JobRequest past = job("b0", "b", 1, 8, HOUR, 2 * HOUR, T0 + 5 * MIN);

        // when estimated without arrivals, with the one stamped before the copy's time, and with both
        Map<String, StartEstimate> without = estimator.estimate(s);
        Map<String, StartEstimate> pastOnly = estimator.prepare(s).arrivals(List.of(past)).run();
        ForwardRun run = estimator.prepare(s).arrivals(List.of(later, past));
        Map<String, StartEstimate> with = run.run();

        // then without, it starts when the running job ends, and the past arrival is left out; with
        // b's, b's job takes the node at that end (ranked ahead) and a's job displaces it at the forward
        // run's first tick after b's use passed a's by the margin (a one-node job has no reservation
        // right: before that, by the ratios, it may not)
        assertThat(without.get("wait").expectedStartMillis()).isEqualTo(T0 + HOUR);
        assertThat(pastOnly).isEqualTo(without);
        assertThat(with).containsOnlyKeys("wait"); // arrivals get no estimate of their own
        assertThat(with.get("wait").expectedStartMillis()).isEqualTo(T0 + 2 * HOUR + 30 * MIN);
        assertThatThrownBy(() -> run.arrivals(List.of(later))).isInstanceOf(IllegalStateException.class);
        assertThat(s.job("b1")).isEmpty(); // the live core never saw them
    }

    @Test
    void endsTakenTogetherStartEachJobWhenItsOwnNodeFreedUp() {
        // given two 8-GPU nodes whose jobs end 10 h and 10 h 20 min ahead (one step of the forward
        // run: ends within 5 % of the look-ahead are taken together), and three 8-GPU jobs waiting
        world(2, "a");
        submitAndPass(T0, job("r0", "a", 1, 8, HOUR, 10 * HOUR, T0), job("r1", "a", 1, 8, HOUR, 10 * HOUR + 20 * MIN, T0));
        submitAndPass(T0 + MIN, job("w1", "a", 1, 8, HOUR, HOUR, T0 + MIN), job("w2", "a", 1, 8, HOUR, HOUR, T0 + MIN),
                job("w3", "a", 1, 8, HOUR, HOUR, T0 + MIN));

        // when
        Map<String, StartEstimate> e = estimator.estimate(s);

        // then the first two start when their own node freed up, not both at the step's last end,
        // and the third follows the earlier of them an hour later (the delay does not carry on)
        assertThat(List.of(e.get("w1").expectedStartMillis(), e.get("w2").expectedStartMillis()))
                .containsExactlyInAnyOrder(T0 + 10 * HOUR, T0 + 10 * HOUR + 20 * MIN);
        assertThat(e.get("w3").expectedStartMillis()).isEqualTo(T0 + 11 * HOUR);
    }

    @Test
    void aChainOfTwoStartsOneAfterTheOther() {
        world(1, "a");
        submitAndPass(T0, job("run", "a", 1, 8, HOUR, HOUR, T0));
        submitAndPass(T0 + MIN, job("w1", "a", 1, 8, HOUR, 2 * HOUR, T0 + MIN), job("w2", "a", 1, 8, HOUR, HOUR,
                T0 + 2 * MIN));

        Map<String, StartEstimate> e = estimator.estimate(s);

        assertThat(e.keySet()).containsExactly("w1", "w2"); // queue order
        assertThat(e.get("w1")).isEqualTo(new StartEstimate("w1", T0 + HOUR, Basis.DECLARED));
        assertThat(e.get("w2")).isEqualTo(new StartEstimate("w2", T0 + 3 * HOUR, Basis.DECLARED));
    }

    @Test
    void theBasisIsTheWeakestAmongTheEndsWaitedFor() {
        // given team a's 1x8 jobs ran 2 h three times, team b has no history; the running jobs are
        // protected for 8 h, so nothing is displaced
        world(2, "a", "b");
        for (int i = 0; i < 3; i++) {
            runTimes.observe(job("old" + i, "a", 1, 8, HOUR, -1, T0), 2 * HOUR);
        }
        submitAndPass(T0, job("ra", "a", 1, 8, 8 * HOUR, -1, T0), job("rb", "b", 1, 8, 8 * HOUR, -1, T0));
        submitAndPass(T0 + MIN, job("w1", "a", 1, 8, HOUR, -1, T0 + MIN), job("w2", "a", 1, 8, HOUR, -1,
                T0 + 2 * MIN));

        Map<String, StartEstimate> e = estimator.estimate(s);

        // then w1 takes ra's node when it ends at its learned 2 h; w2 waits for rb's default 4 h as well
        assertThat(e.get("w1")).isEqualTo(new StartEstimate("w1", T0 + 2 * HOUR, Basis.LEARNED));
        assertThat(e.get("w2")).isEqualTo(new StartEstimate("w2", T0 + 4 * HOUR, Basis.DEFAULT));
    }

    @Test
    void aReservationHoldsNodesForTheBlockedLargeJob() {
        // given n00 runs a (8 GPUs, ends at +1 h), n01 runs b (4 GPUs, ends at +3 h), both protected 8 h
        world(2, "big", "small");
        submitAndPass(T0, job("a", "small", 1, 8, 8 * HOUR, HOUR, T0), job("b", "small", 1, 4, 8 * HOUR, 3 * HOUR, T0));
        // and big (2 x 8 GPUs, ranks first: nothing used) then a 4-GPU job of small that runs 10 h,
        // protected 8 h
        List<Decision> d = submitAndPass(T0 + MIN, job("big", "big", 2, 8, HOUR, HOUR, T0 + MIN),
                job("s", "small", 1, 4, 8 * HOUR, 10 * HOUR, T0 + MIN));
        // big holds both nodes until b's declared end (3 h, sooner than the protected windows' 8 h: held
        // reservations judge releases when they happen): s would run and be protected past that, so it waits
        assertThat(d).anyMatch(x -> x instanceof Decision.Reserve r && r.jobId().equals("big")
                && r.dueAtMillis() == T0 + 3 * HOUR);
        assertThat(d).noneMatch(x -> x instanceof Decision.Place);

        Map<String, StartEstimate> e = estimator.estimate(s);

        // then big starts once b's end frees the second node, and s (too long to backfill the reserved
        // GPUs free now) only after big
        assertThat(e.get("big")).isEqualTo(new StartEstimate("big", T0 + 3 * HOUR, Basis.DECLARED));
        assertThat(e.get("s")).isEqualTo(new StartEstimate("s", T0 + 4 * HOUR, Basis.DECLARED));
    }

    @Test
    void aJobThatCannotStartWithinTheHorizonIsBeyondIt() {
        world(1, "a");
        submitAndPass(T0, job("run", "a", 1, 8, HOUR, 3 * DAY, T0), job("huge", "a", 2, 8, HOUR, HOUR, T0));

        Map<String, StartEstimate> e = estimator.estimate(s);

        // a 16-GPU gang never fits one 8-GPU node; nor does anything start before the 3-day run ends
        assertThat(e.get("huge").basis()).isEqualTo(Basis.BEYOND_HORIZON);
        assertThat(e.get("huge").expectedStartMillis()).isEqualTo(T0 + 2 * DAY);
    }

    @Test
    void aJobRunningPastItsLearnedRunIsExpectedToRunLonger() {
        // given a's runs of 1, 2 and 6 h; its running job has run 3 h already
        world(1, "a");
        runTimes.observe(job("o1", "a", 1, 8, HOUR, -1, T0), HOUR);
        runTimes.observe(job("o2", "a", 1, 8, HOUR, -1, T0), 2 * HOUR);
        runTimes.observe(job("o3", "a", 1, 8, HOUR, -1, T0), 6 * HOUR);
        submitAndPass(T0, job("run", "a", 1, 8, HOUR, -1, T0));
        submitAndPass(T0 + 3 * HOUR, job("wait", "a", 1, 8, HOUR, -1, T0 + 3 * HOUR));

        Map<String, StartEstimate> e = estimator.estimate(s);

        // then it ends at the median of the runs longer than 3 h (6 h), not at once
        assertThat(e.get("wait")).isEqualTo(new StartEstimate("wait", T0 + 6 * HOUR, Basis.LEARNED));
    }

    @Test
    void preemptionsTheCoreWouldDecideAreHonoured() {
        // given team a fills the node with an unallocated job (min runtime 0: displaceable at any time)
        world(1, "a", "b");
        submitAndPass(T0, job("u", "a", 1, 8, 0, 10 * HOUR, T0));
        // and team b's allocated job arrives after the pass
        s.submit(T0 + MIN, job("w", "b", 1, 8, HOUR, HOUR, T0 + MIN));
        s.advanceTo(T0 + MIN);

        Map<String, StartEstimate> e = estimator.estimate(s);

        // then w starts at the next pass by displacing u, and u is estimated again after w
        assertThat(e.get("w")).isEqualTo(new StartEstimate("w", T0 + MIN, Basis.DECLARED));
        // and without preemption (the Slurm-style baseline) it waits for u's end
        Map<String, StartEstimate> baseline = new StartEstimator(runTimes, 2 * DAY, StartEstimator.Steps.defaults(),
                false).estimate(s);
        assertThat(baseline.get("w")).isEqualTo(new StartEstimate("w", T0 + 10 * HOUR, Basis.DECLARED));
    }

    @Test
    void theLiveCoreIsNotChanged() {
        // given two cores built by the same calls
        Scheduler twin = new Scheduler();
        for (Scheduler c : List.of(s, twin)) {
            c.defineBudget(T0, "org", null, 1);
            c.defineBudget(T0, "a", "org", 1);
            c.defineBudget(T0, "b", "org", 3);
            for (int i = 0; i < 3; i++) {
                c.registerNode(T0, new NodeSpec("c1", "n" + i, 8));
            }
            c.submit(T0, job("r1", "a", 1, 8, HOUR, 2 * HOUR, T0));
            c.submit(T0, job("r2", "b", 2, 4, 0, -1, T0));
            c.submit(T0, job("r3", "b", 1, 4, HOUR, -1, T0));
            c.schedule(T0);
            c.submit(T0 + MIN, job("w1", "a", 2, 8, HOUR, HOUR, T0 + MIN));
            c.submit(T0 + MIN, job("w2", "b", 1, 8, 2 * HOUR, -1, T0 + MIN));
            c.submit(T0 + MIN, job("w3", "a", 1, 2, 0, -1, T0 + MIN));
            c.schedule(T0 + MIN);
            c.drainNode(T0 + 2 * MIN, "n2");
        }
        String before = describe(s);

        // when one of them is estimated (twice)
        estimator.estimate(s);
        estimator.estimate(s);

        // then it reads the same, and the same events lead both to the same decisions
        assertThat(describe(s)).isEqualTo(before);
        for (long t = T0 + 3 * MIN; t < T0 + 6 * HOUR; t += 20 * MIN) {
            if (t >= T0 + 2 * HOUR) {
                s.jobFinished(t, "r1");
                twin.jobFinished(t, "r1");
            }
            assertThat(s.schedule(t)).isEqualTo(twin.schedule(t));
        }
        assertThat(describe(s)).isEqualTo(describe(twin));
    }

    @Test
    void aPreparedRunAnswersForTheCoreAsItWasCopiedWhateverTheLiveCoreDoesMeanwhile() {
        // given two cores built by the same calls, with jobs running and waiting
        Scheduler twin = new Scheduler();
        for (Scheduler c : List.of(s, twin)) {
            c.defineBudget(T0, "org", null, 1);
            c.defineBudget(T0, "a", "org", 1);
            c.defineBudget(T0, "b", "org", 1);
            c.registerNode(T0, new NodeSpec("c1", "n0", 8));
            c.registerNode(T0, new NodeSpec("c1", "n1", 8));
            c.submit(T0, job("r1", "a", 1, 8, HOUR, 2 * HOUR, T0));
            c.submit(T0, job("r2", "b", 1, 8, HOUR, -1, T0));
            c.schedule(T0);
            c.submit(T0 + MIN, job("w1", "a", 1, 8, HOUR, HOUR, T0 + MIN));
            c.submit(T0 + MIN, job("w2", "b", 2, 8, HOUR, -1, T0 + MIN));
            c.schedule(T0 + MIN);
        }

        // when a run is prepared from one, which then goes on (a job ends, one arrives, a pass, a run learned)
        ForwardRun run = estimator.prepare(s);
        s.jobFinished(T0 + 2 * MIN, "r1");
        s.submit(T0 + 2 * MIN, job("late", "b", 1, 8, HOUR, -1, T0 + 2 * MIN));
        s.schedule(T0 + 2 * MIN);
        runTimes.observe(job("x", "b", 1, 8, HOUR, -1, T0), 10 * MIN);
        runTimes.observe(job("x", "b", 1, 8, HOUR, -1, T0), 10 * MIN);
        runTimes.observe(job("x", "b", 1, 8, HOUR, -1, T0), 10 * MIN);
        Map<String, StartEstimate> e = run.run();

        // then it answers for the jobs that waited at the copy, as the untouched twin's estimate does
        assertThat(run.nowMillis()).isEqualTo(T0 + MIN);
        assertThat(run.waitingJobs()).isEqualTo(2);
        assertThat(run.passes()).isPositive();
        assertThat(e).containsOnlyKeys("w1", "w2").isEqualTo(new StartEstimator(new LearnedRunTimes(4 * HOUR), 2 * DAY)
                .estimate(twin));
        // and it runs once
        assertThatThrownBy(run::run).isInstanceOf(IllegalStateException.class);
    }

    static String describe(Scheduler c) {
        StringBuilder b = new StringBuilder().append(c.nowMillis()).append('\n');
        c.jobs().forEach(j -> b.append(j.jobId()).append(' ').append(j.state()).append(' ').append(j.placement())
                .append(' ').append(j.placedAtMillis()).append(' ').append(j.queuedSinceMillis()).append('\n'));
        c.nodes().forEach(n -> b.append(n.nodeId()).append(' ').append(n.freeGpus()).append(' ')
                .append(n.draining()).append('\n'));
        for (String cl : c.clusters()) {
            b.append(c.reservations(cl)).append('\n');
            c.waiting(cl).forEach(j -> b.append(j.jobId()).append(','));
            java.util.ArrayDeque<String> accounts = new java.util.ArrayDeque<>(c.budgets().roots());
            while (!accounts.isEmpty()) {
                String a = accounts.poll();
                b.append(c.usage(cl, a)).append('\n');
                accounts.addAll(c.budgets().children(a));
            }
        }
        return b.toString();
    }
}
