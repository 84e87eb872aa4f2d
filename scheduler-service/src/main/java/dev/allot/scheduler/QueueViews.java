package dev.allot.scheduler;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobView;
import dev.allot.core.Scheduler;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.explain.RunningExplanation;
import dev.allot.core.explain.WaitingExplanation;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.JobState;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartEstimateBasis;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The views the loop publishes, read from the core's answers: the queue snapshot (waiting jobs in
 * order with the core's explanations, then running jobs) and the demand per account the
 * {@link DemandMeter} samples.
 */
final class QueueViews {

    private QueueViews() {
    }

    /**
     * The cluster's queue as the last pass saw it.
     *
     * @param running ids of the running jobs, in the order they were placed
     * @param estimates the last expected starts (null before the first refresh): each waiting job's, if it
     *     waited then, with its basis; a job beyond the horizon has a basis and no time
     */
    static QueueSnapshot snapshot(Scheduler core, String cluster, Iterable<String> running, long now, int maxEntries,
            StartEstimates.Latest estimates) {
        List<QueueEntry> entries = new ArrayList<>();
        for (JobView j : core.waiting(cluster)) {
            if (entries.size() >= maxEntries) {
                break;
            }
            WaitingExplanation w = core.explainWaiting(j.jobId()).orElse(null);
            List<AccountRatio> ahead = new ArrayList<>();
            if (w != null) {
                for (dev.allot.core.explain.AccountRatio a : w.accountsAhead()) {
                    ahead.add(new AccountRatio(a.account(), a.chargedGpuSeconds(), a.entitledGpuSeconds(),
                            DecisionWriter.finite(a.ratio())));
                }
            }
            StartEstimate estimate = estimates == null ? null : estimates.byJob().get(j.jobId());
            entries.add(new QueueEntry(j.jobId(), j.account(), JobState.WAITING,
                    w == null ? entries.size() + 1 : w.position(), j.gpus(),
                    w == null ? "not yet looked at by a pass" : w.reason(), ahead, null,
                    estimate == null || estimate.beyondHorizon() ? null : Instant.ofEpochMilli(estimate.expectedStartMillis()),
                    estimate == null ? null : StartEstimateBasis.valueOf(estimate.basis().name())));
        }
        for (String jobId : running) {
            if (entries.size() >= maxEntries) {
                break;
            }
            JobView j = core.job(jobId).orElseThrow();
            RunningExplanation e = core.explainRunning(jobId).orElse(null);
            Instant until = j.chargeMode() == ChargeMode.ALLOCATED && e != null
                    ? Instant.ofEpochMilli(e.protectedUntilMillis()) : null;
            entries.add(new QueueEntry(jobId, j.account(), JobState.RUNNING, null, j.gpus(),
                    e == null ? "running" : e.reason(), List.of(), until, null, null));
        }
        return new QueueSnapshot(cluster, Instant.ofEpochMilli(now), entries,
                estimates == null ? null : Instant.ofEpochMilli(estimates.computedAtMillis()),
                estimates == null ? null : estimates.horizonMillis() / 1000);
    }

    /** GPUs per account right now: [waiting, running allocated]. */
    static Map<String, int[]> demandByAccount(Scheduler core, String cluster, Iterable<String> running) {
        Map<String, int[]> demand = new TreeMap<>();
        for (JobView j : core.waiting(cluster)) {
            demand.computeIfAbsent(j.account(), a -> new int[2])[0] += j.gpus();
        }
        for (String jobId : running) {
            JobView j = core.job(jobId).orElseThrow();
            if (j.chargeMode() == ChargeMode.ALLOCATED) {
                demand.computeIfAbsent(j.account(), a -> new int[2])[1] += j.gpus();
            }
        }
        return demand;
    }
}
