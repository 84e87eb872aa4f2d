package dev.allot.chaos;

import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The judge of a chaos run: pure functions from the decoded log ({@link ChaosLog}) to a {@link ChaosReport}. No
 * clock, no Kafka: a test feeds it hand-made event sequences.
 *
 * <p>Which jobs are judged: those submitted at or after {@code since} (the run's start), so an older history on the
 * same broker does not count. Usage sums are compared over the accounting-service's whole window, where both
 * sides hold everything.
 */
public final class ChaosVerdict {

    private ChaosVerdict() {
    }

    /** A job's events in log order (they share its partition), as read. */
    private static Map<String, List<JobEvent>> byJob(List<JobEvent> events) {
        Map<String, List<JobEvent>> out = new LinkedHashMap<>();
        for (JobEvent e : events) {
            out.computeIfAbsent(e.getJobId(), k -> new ArrayList<>()).add(e);
        }
        return out;
    }

    /**
     * @param acknowledged the job ids the API answered 202 to (the driver's record); a job acknowledged but absent
     *                     from {@code job-requests} is lost too. Empty when unknown.
     */
    public static ChaosReport judge(ChaosLog log, Instant since, Collection<String> acknowledged,
                                    List<Recovery> recoveries) {
        Map<String, JobSubmitted> submitted = new LinkedHashMap<>();
        for (JobSubmitted s : log.submissions()) {
            if (!s.getSubmittedAt().isBefore(since)) {
                submitted.putIfAbsent(s.getJobId(), s);
            }
        }
        Map<String, List<JobEvent>> jobs = byJob(log.jobEvents());
        int accepted = 0, rejected = 0, completed = 0, failed = 0, cancelled = 0;
        List<String> lost = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        Set<String> judged = new LinkedHashSet<>(submitted.keySet());
        for (String id : acknowledged) {
            if (!submitted.containsKey(id)) {
                lost.add(id + " (acknowledged, not in job-requests)");
            }
        }
        for (String id : judged) {
            List<JobEvent> events = jobs.getOrDefault(id, List.of());
            boolean isAccepted = has(events, JobAccepted.class);
            boolean isRejected = has(events, JobRejected.class);
            accepted += isAccepted ? 1 : 0;
            rejected += isRejected ? 1 : 0;
            if (!isAccepted && !isRejected) {
                lost.add(id);
                continue;
            }
            if (!isAccepted) {
                continue;
            }
            Object verdict = finalVerdict(events);
            if (verdict == null) {
                stuck.add(id);
                continue;
            }
            switch (verdict) {
                case JobCompleted c -> completed++;
                case JobFailed f -> failed++;
                default -> cancelled++;
            }
            String why = wrongVerdict(submitted.get(id), events, verdict);
            if (why != null) {
                wrong.add(id + ": " + why);
            }
        }
        long end = log.readAt().toEpochMilli();
        List<GpuTime.Overlap> doubleBooked = GpuTime.overlaps(bookings(jobs, judged, end));
        List<GpuTime.Overlap> shared = GpuTime.overlaps(processes(jobs, judged, end));
        UsageCheck usage = usage(log.usage(), log.budgetUsage());
        Map<String, Integer> deadLetters = new TreeMap<>();
        for (DeadLetter d : log.deadLetters()) {
            if (!d.getFailedAt().isBefore(since)) {
                deadLetters.merge(d.getConsumer(), 1, Integer::sum);
            }
        }
        return new ChaosReport(submitted.size(), acknowledged.size(), accepted, rejected, completed, failed, cancelled,
                lost, stuck, wrong, doubleBooked, shared, usage.reported(), usage.mismatch(), usage.accounts(),
                deadLetters, List.copyOf(recoveries), log.undecodable());
    }

    private static boolean has(List<JobEvent> events, Class<?> type) {
        return events.stream().anyMatch(e -> type.isInstance(e.getPayload()));
    }

    /** The job's final verdict: the first completed, failed or cancelled; null while it has none. */
    static Object finalVerdict(List<JobEvent> events) {
        for (JobEvent e : events) {
            Object p = e.getPayload();
            if (p instanceof JobCompleted || p instanceof JobFailed || p instanceof JobCancelled) {
                return p;
            }
        }
        return null;
    }

    /**
     * Why the verdict is wrong, or null: FAILED for a job whose process exits 0 (by its command, or as the agents
     * reported every replica of its last run) unless the scheduler stopped that run (a preemption without requeue,
     * a stop the agent reported), COMPLETED for one whose command exits otherwise. A cancel is the submitter's
     * word, never wrong.
     */
    static String wrongVerdict(JobSubmitted submission, List<JobEvent> events, Object verdict) {
        Integer expected = submission == null ? null : ExpectedExit.of(submission.getCommand());
        if (verdict instanceof JobFailed f) {
            List<Object> lastRun = lastRun(events);
            boolean stopped = lastRun.stream().anyMatch(p -> p instanceof JobPreempted
                    || p instanceof JobExited x && x.getStopped());
            if (stopped) {
                return null;
            }
            if (expected != null && expected == 0) {
                return "FAILED (" + f.getReason() + ", exit " + f.getExitCode() + ") but its command exits 0";
            }
            List<JobExited> exits = lastRun.stream().filter(JobExited.class::isInstance).map(JobExited.class::cast)
                    .toList();
            if (!exits.isEmpty() && exits.stream().allMatch(x -> x.getExitCode() == 0)) {
                return "FAILED (" + f.getReason() + ") but every replica of its last run exited 0";
            }
        } else if (verdict instanceof JobCompleted && expected != null && expected != 0) {
            return "COMPLETED but its command exits " + expected;
        }
        return null;
    }

    /** The payloads since the job's last placement. */
    private static List<Object> lastRun(List<JobEvent> events) {
        List<Object> out = new ArrayList<>();
        for (JobEvent e : events) {
            if (e.getPayload() instanceof JobPlaced) {
                out.clear();
            }
            out.add(e.getPayload());
        }
        return out;
    }

    /**
     * The scheduler's bookings: each placement holds its GPUs from its {@code JobPlaced} until the scheduler's next
     * word that lets them go (preempted, lost, requeued, completed, failed, cancelled), or until the log's end. The
     * shortest reading of a booking, so an overlap is one the scheduler certainly made.
     */
    static List<GpuTime.Hold> bookings(Map<String, List<JobEvent>> jobs, Set<String> judged, long end) {
        List<GpuTime.Hold> holds = new ArrayList<>();
        for (String id : judged) {
            JobPlaced open = null;
            long from = 0;
            for (JobEvent e : jobs.getOrDefault(id, List.of())) {
                Object p = e.getPayload();
                long at = e.getOccurredAt().toEpochMilli();
                if (p instanceof JobPlaced placed) {
                    if (open != null) {
                        hold(holds, id, open, from, at);
                    }
                    open = placed;
                    from = at;
                } else if (open != null && releases(p)) {
                    hold(holds, id, open, from, at);
                    open = null;
                }
            }
            if (open != null) {
                hold(holds, id, open, from, Math.max(from, end));
            }
        }
        return holds;
    }

    private static boolean releases(Object payload) {
        return payload instanceof JobPreempted || payload instanceof JobLost || payload instanceof JobRequeued
                || payload instanceof JobCompleted || payload instanceof JobFailed || payload instanceof JobCancelled;
    }

    private static void hold(List<GpuTime.Hold> holds, String id, JobPlaced placed, long from, long to) {
        for (GpuAssignment a : placed.getAssignments()) {
            for (Integer gpu : a.getGpuIndices()) {
                holds.add(new GpuTime.Hold(id, a.getNodeId(), gpu, from, to));
            }
        }
    }

    /**
     * The processes as the agents reported them: a replica holds the GPUs its placement gave it from its
     * {@code JobStarted} to its {@code JobExited} on the same node (or the log's end while it runs).
     */
    static List<GpuTime.Hold> processes(Map<String, List<JobEvent>> jobs, Set<String> judged, long end) {
        List<GpuTime.Hold> holds = new ArrayList<>();
        for (String id : judged) {
            JobPlaced placed = null;
            Map<String, long[]> running = new HashMap<>();        // node/replica -> {start}
            Map<String, List<Integer>> gpusOf = new HashMap<>();  // node/replica -> GPUs
            for (JobEvent e : jobs.getOrDefault(id, List.of())) {
                Object p = e.getPayload();
                long at = e.getOccurredAt().toEpochMilli();
                if (p instanceof JobPlaced pl) {
                    placed = pl;
                } else if (p instanceof JobStarted s && placed != null) {
                    String key = s.getNodeId() + "/" + s.getReplicaIndex();
                    List<Integer> gpus = gpus(placed, s.getNodeId(), s.getReplicaIndex());
                    if (gpus != null && !running.containsKey(key)) {
                        running.put(key, new long[] {at});
                        gpusOf.put(key, gpus);
                    }
                } else if (p instanceof JobExited x) {
                    String key = x.getNodeId() + "/" + x.getReplicaIndex();
                    long[] start = running.remove(key);
                    if (start != null) {
                        for (Integer gpu : gpusOf.remove(key)) {
                            holds.add(new GpuTime.Hold(id, x.getNodeId(), gpu, start[0], Math.max(start[0], at)));
                        }
                    }
                }
            }
            running.forEach((key, start) -> {
                String node = key.substring(0, key.lastIndexOf('/'));
                for (Integer gpu : gpusOf.get(key)) {
                    holds.add(new GpuTime.Hold(id, node, gpu, start[0], Math.max(start[0], end)));
                }
            });
        }
        return holds;
    }

    private static List<Integer> gpus(JobPlaced placed, String node, int replica) {
        for (GpuAssignment a : placed.getAssignments()) {
            if (a.getNodeId().equals(node) && a.getReplicaIndex() == replica) {
                return a.getGpuIndices();
            }
        }
        return null;
    }

    record UsageCheck(double reported, double mismatch, List<String> accounts) {
    }

    /**
     * The agents' {@code UsageReported} summed per (cluster, leaf account) and charge mode, against the latest
     * {@code BudgetUsage} the accounting-service published for that account (charged = allocated usage,
     * unallocated = the free kind), counting the usage whose interval ended inside that publication's window.
     */
    static UsageCheck usage(List<UsageReported> usage, List<BudgetUsage> published) {
        Map<String, BudgetUsage> latest = new HashMap<>();
        for (BudgetUsage b : published) {
            latest.merge(Topics.accountKey(b.getCluster(), b.getAccount()), b,
                    (old, now) -> now.getWindowEnd().isBefore(old.getWindowEnd()) ? old : now);
        }
        Map<String, double[]> sums = new TreeMap<>();   // key -> {charged, unallocated}
        double reported = 0;
        for (UsageReported u : usage) {
            String key = Topics.accountKey(u.getCluster(), u.getAccount());
            BudgetUsage b = latest.get(key);
            if (b != null && (u.getIntervalEnd().isAfter(b.getWindowEnd())
                    || !u.getIntervalEnd().isAfter(b.getWindowStart()))) {
                continue; // outside the window of the figure it is compared with
            }
            double[] s = sums.computeIfAbsent(key, k -> new double[2]);
            s[u.getChargeMode() == ChargeMode.ALLOCATED ? 0 : 1] += u.getGpuSeconds();
            reported += u.getGpuSeconds();
        }
        double mismatch = 0;
        List<String> accounts = new ArrayList<>();
        for (Map.Entry<String, double[]> e : sums.entrySet()) {
            BudgetUsage b = latest.get(e.getKey());
            double charged = b == null ? 0 : b.getChargedGpuSeconds();
            double free = b == null ? 0 : b.getUnallocatedGpuSeconds();
            double diff = Math.abs(charged - e.getValue()[0]) + Math.abs(free - e.getValue()[1]);
            mismatch += diff;
            if (diff > ChaosReport.EXACT * Math.max(1, e.getValue()[0] + e.getValue()[1])) {
                accounts.add(String.format(Locale.ROOT, "%s: agents %.3f charged + %.3f free, accounting %s",
                        e.getKey(), e.getValue()[0], e.getValue()[1],
                        b == null ? "none" : String.format(Locale.ROOT, "%.3f + %.3f", charged, free)));
            }
        }
        return new UsageCheck(reported, mismatch, accounts);
    }
}
