package dev.allot.core.estimate;

import dev.allot.core.JobView;
import dev.allot.core.Scheduler;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.UsageFeed;
import dev.allot.core.policy.SchedulingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Expected start of every waiting job: runs a copy of the live core forward on a virtual clock
 * (running jobs end at their expected end, no new arrivals) and notes when each waiting job is
 * first placed. The live core is not changed.
 *
 * <p>Two parts: {@link #prepare} reads the live core, on its thread (a copy, cheap next to the run),
 * and {@link ForwardRun#run} runs the copy forward reading nothing of the live core, so a service can
 * run it on a thread of its own while the core goes on deciding; {@link #estimate} does both.
 *
 * <p>The forward run ({@link Scheduler#copy}: same budgets, usage window, entitlement, nodes,
 * jobs, reservations; the copy charges its running jobs as virtual time passes, so ratios move as
 * they would):
 * <ol>
 *   <li>a pass at the live core's time, on the state as it is;
 *   <li>every job running then ends at its placement plus the {@link RunTimeModel}'s expected
 *       run, measured from its placement ({@link RunTimeModel#expectedRemaining} given what it ran
 *       so far), never before now; a job the copy places ends at its placement plus
 *       {@link RunTimeModel#expectedRun};
 *   <li>the next step is the earliest of: the next expected end, the next end of a protected
 *       window, the next reservation due, and a tick (ratios move with time) of
 *       {@link Steps#tickMillis} or five times {@link Steps#stepFraction} of the time looked ahead so
 *       far, whichever is longer. Every end up to that time plus {@link Steps#stepFraction} of the time
 *       looked ahead (at least {@link Steps#minStepMillis}) is reported finished in one step, each at
 *       its own time, and one pass runs at the last of them, so the cost grows with the logarithm
 *       of the horizon rather than with the number of ends;
 *   <li>preemptions the copy decides are honoured (the victim requeues in the copy and its
 *       expected end is dropped), reservations and protected windows are the core's own;
 *   <li>it stops when every waiting job was placed once, past the horizon, after
 *       {@link Steps#maxSteps} passes, or when nothing runs any more (nothing can free GPUs).
 * </ol>
 *
 * <p>No arrivals unless told: {@link ForwardRun#arrivals} submits known jobs into the copy as it
 * reaches their times (the simulator's diagnosis of the error; the service publishes estimates
 * without them).
 *
 * <p>A job's estimate is when the pass that first placed it takes it to start: the pass stands for
 * its step, so a job starts when the GPUs it got were freed within the step (the latest end on its
 * nodes, or the step's first moment), not at the step's last end; its run, and so the next ends on
 * those GPUs, count from then. Without this the delay of each step would add up run after run over
 * the look-ahead (the shared trace's 30 days: a median error of 1.07 of the wait when starts waited
 * for the step's last end, 0.76 now; docs/benchmarks.md). Its basis is the weakest
 * run-time basis (DECLARED, then LEARNED, then DEFAULT) among the expected ends of its cluster the
 * forward run had passed when it placed the job: all of them, not only those on the nodes it got,
 * since any of them may have changed the order or the free GPUs before it. A job placed by the
 * first pass waited for no end: DECLARED. A job not placed is {@link StartEstimate.Basis#BEYOND_HORIZON}
 * with the horizon's end as its time.
 */
public final class StartEstimator {

    /**
     * How the forward run steps.
     *
     * @param maxSteps at most this many passes per estimate
     * @param minStepMillis ends this close to the next one are taken in the same pass
     * @param stepFraction ends within this fraction of the time looked ahead so far are taken in the
     *     same pass (so a start five hours ahead is off by at most about this fraction)
     * @param tickMillis a pass at least this often while something runs (ratios move with time)
     */
    public record Steps(int maxSteps, long minStepMillis, double stepFraction, long tickMillis) {
        public Steps {
            if (maxSteps < 1 || minStepMillis < 0 || stepFraction < 0 || tickMillis <= 0) {
                throw new IllegalArgumentException("bad steps: " + maxSteps + ", " + minStepMillis + ", "
                        + stepFraction + ", " + tickMillis);
            }
        }

        /**
         * 200 passes, ends within 1 min or 5 % of the look-ahead together, a tick every 30 min or
         * 25 % of the look-ahead: a start 10 h ahead is placed at most about 30 min late.
         */
        public static Steps defaults() {
            return new Steps(200, 60_000, 0.05, 30 * 60_000);
        }
    }

    private final RunTimeModel runTimes;
    private final long horizonMillis;
    private final Steps steps;
    private final boolean preemption;

    /** @param horizonMillis how far ahead to look; jobs not placed by then are BEYOND_HORIZON */
    public StartEstimator(RunTimeModel runTimes, long horizonMillis) {
        this(runTimes, horizonMillis, Steps.defaults(), true);
    }

    /**
     * @param preemption false: nothing is preempted in the forward run ({@link WithoutPreemption}),
     *     as a Slurm-style estimate assumes
     */
    public StartEstimator(RunTimeModel runTimes, long horizonMillis, Steps steps, boolean preemption) {
        if (horizonMillis <= 0) {
            throw new IllegalArgumentException("the horizon must be positive: " + horizonMillis);
        }
        this.runTimes = runTimes;
        this.horizonMillis = horizonMillis;
        this.steps = steps;
        this.preemption = preemption;
    }

    public long horizonMillis() {
        return horizonMillis;
    }

    /**
     * The part of an estimate that reads the live core, on the live core's thread: the waiting jobs,
     * a copy of the core ({@link Scheduler#copy}, one pass over its jobs and nodes) and the run-time
     * figures as they stand ({@link RunTimeModel#snapshot}). The returned run reads none of the live
     * core, so a service may run it on another thread while the live core goes on.
     */
    public ForwardRun prepare(Scheduler live) {
        List<String> queue = new ArrayList<>();
        for (String cluster : live.clusters()) {
            for (JobView j : live.waiting(cluster)) {
                queue.add(j.jobId());
            }
        }
        if (queue.isEmpty()) {
            return new ForwardRun(live.nowMillis(), queue, null, runTimes, horizonMillis, steps);
        }
        SchedulingPolicy policy = preemption ? live.policy() : new WithoutPreemption(live.policy());
        SchedulerConfig config = live.config().withUsageFeed(UsageFeed.RUNNING_JOBS);
        Scheduler sim = live.copy(config, policy);
        sim.writeReasons(false);
        return new ForwardRun(live.nowMillis(), queue, sim, runTimes.snapshot(), horizonMillis, steps);
    }

    /**
     * Estimates for every waiting job of every cluster, keyed by job id, in queue order per cluster:
     * {@link #prepare} and {@link ForwardRun#run} on the caller's thread.
     */
    public Map<String, StartEstimate> estimate(Scheduler live) {
        return prepare(live).run();
    }
}
