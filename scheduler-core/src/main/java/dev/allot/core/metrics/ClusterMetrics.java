package dev.allot.core.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Accumulates what happened on one cluster during a period [0, periodSeconds) and turns it into
 * the figures Allot reports. Feed it intervals as they close; it keeps hourly series per team.
 *
 * <p>Definitions:
 * <ul>
 *   <li><b>occupancy</b> = GPU-seconds held by jobs (charged or not) / GPU-seconds available
 *       (capacity x period);</li>
 *   <li><b>owed / delivered</b>: see {@link OwedHours}. Both count <em>allocated</em> work only, the
 *       work a budget pays for: demand is the GPUs of a team's outstanding allocated jobs (submitted,
 *       not finished: waiting or running), hour by hour, and delivered is the GPU-time its allocated
 *       jobs held. Unallocated jobs are free and never protected: a budget owes them nothing, and
 *       the GPU-time they get is reported apart ({@code unallocatedShare}, per-team unallocated
 *       series);</li>
 *   <li><b>unallocated share</b> = GPU-seconds held by unallocated jobs / all GPU-seconds held;</li>
 *   <li><b>waits</b>: see {@link WaitStats};</li>
 *   <li><b>preemptions</b>: count of jobs stopped to make room for others; <b>lost GPU-hours</b>:
 *       GPUs x the work each victim had done since its last checkpoint (all of its run when not
 *       resumable), split by the victim's charge mode and by resumable or not; <b>lost share</b> =
 *       lost / available GPU-hours; <b>useful GPU-hours</b> = held - lost;</li>
 *   <li><b>useful owed hours</b>: as owed / delivered, with delivery counting only the work kept:
 *       each allocated victim's lost work is taken out of the hours it was delivered in;</li>
 *   <li><b>head of line</b> (large jobs): from a job's first reservation to its next placement;
 *       <b>preemption cycles</b>: see {@link PreemptionCycles};</li>
 *   <li><b>fragmentation</b> = GPU-seconds left idle while at least one job waited / GPU-seconds
 *       available: capacity lost to shape (free GPUs scattered over nodes, nodes held empty for a
 *       reservation), 0 when every idle GPU-second had no waiting job to serve.</li>
 * </ul>
 */
public final class ClusterMetrics {
    private final long periodSeconds;
    private final int capacityGpus;
    private final Map<String, Double> fractions;
    private final Map<String, HourlySeries> delivered = new TreeMap<>();
    private final Map<String, HourlySeries> demand = new TreeMap<>();
    private final Map<String, HourlySeries> unallocatedByTeam = new TreeMap<>();
    private final HourlySeries held;
    private final HourlySeries unallocated;
    private final HourlySeries idleWhileWaiting;
    private final WaitStats waits = new WaitStats();
    private final Map<String, HourlySeries> lostAllocated = new TreeMap<>();
    private final Map<String, Double> lostByTeam = new TreeMap<>();
    private final WaitStats waitsAllocated = new WaitStats();
    private final WaitStats waitsUnallocated = new WaitStats();
    private final WaitStats headOfLine = new WaitStats();
    private final WaitStats headOfLineAllocated = new WaitStats();
    private final PreemptionCycles cycles = PreemptionCycles.hourly();
    private int preemptions;
    private int preemptionsAllocated;
    private double lostGpuSeconds;
    private double lostAllocatedGpuSeconds;
    private double lostUnallocatedGpuSeconds;
    private double lostResumableGpuSeconds;
    private double lostNonResumableGpuSeconds;

    /**
     * @param fractions each team's fraction of the cluster (its entitlement is fraction x capacity
     *     for every hour); teams that appear later with no fraction are entitled to nothing
     */
    public ClusterMetrics(long periodSeconds, int capacityGpus, Map<String, Double> fractions) {
        if (periodSeconds <= 0 || capacityGpus <= 0) {
            throw new IllegalArgumentException("period and capacity must be positive");
        }
        this.periodSeconds = periodSeconds;
        this.capacityGpus = capacityGpus;
        this.fractions = new TreeMap<>(fractions);
        this.held = HourlySeries.hourly(periodSeconds);
        this.unallocated = HourlySeries.hourly(periodSeconds);
        this.idleWhileWaiting = HourlySeries.hourly(periodSeconds);
        for (String t : this.fractions.keySet()) {
            series(delivered, t);
            series(demand, t);
        }
    }

    private HourlySeries series(Map<String, HourlySeries> m, String team) {
        return m.computeIfAbsent(team, k -> HourlySeries.hourly(periodSeconds));
    }

    public long periodSeconds() {
        return periodSeconds;
    }

    public int capacityGpus() {
        return capacityGpus;
    }

    /**
     * A job of {@code team} held {@code gpus} GPUs during [start, end). Allocated work counts as
     * delivered to the team's budget; unallocated work only in occupancy and the unallocated share.
     */
    public void held(String team, double start, double end, int gpus, boolean allocated) {
        held.addInterval(start, end, gpus);
        if (allocated) {
            series(delivered, team).addInterval(start, end, gpus);
        } else {
            unallocated.addInterval(start, end, gpus);
            series(unallocatedByTeam, team).addInterval(start, end, gpus);
        }
    }

    /**
     * A job of {@code team} asking for {@code gpus} GPUs was outstanding (waiting or running) during
     * [start, end). Only allocated jobs make demand a budget owes; unallocated ones are ignored.
     */
    public void demanded(String team, double start, double end, int gpus, boolean allocated) {
        if (allocated) {
            series(demand, team).addInterval(start, end, gpus);
        } else {
            series(demand, team);
        }
    }

    /** {@code idleGpus} GPUs stayed idle during [start, end) while some job waited. */
    public void idleWhileWaiting(double start, double end, int idleGpus) {
        idleWhileWaiting.addInterval(start, end, idleGpus);
    }

    public void waited(JobClass c, double seconds) {
        waits.add(c, seconds);
    }

    /** A wait as {@link #waited(JobClass, double)}, also counted apart by the job's charge mode. */
    public void waited(JobClass c, double seconds, boolean allocated) {
        waits.add(c, seconds);
        (allocated ? waitsAllocated : waitsUnallocated).add(c, seconds);
    }

    /**
     * A large job's time at the head of the line: from its first reservation to its placement (or
     * to the end of the period when never placed). Allocated ones are also counted apart: an
     * unallocated job has no protected window to wait out and nothing it may displace, so the
     * longest protected window bounds only the allocated ones' time.
     */
    public void headOfLine(double seconds, boolean allocated) {
        headOfLine.add(JobClass.LARGE, seconds);
        if (allocated) {
            headOfLineAllocated.add(JobClass.LARGE, seconds);
        }
    }

    /**
     * One preemption. Its loss counts in the split totals; an allocated victim's lost work is also
     * taken out of the hours it was delivered in ({@code lostFrom..at}, clipped to the period), for
     * useful owed hours; preemptions must come in time order (for the cycle count).
     */
    public void preempted(Preemption p) {
        double lost = Math.max(0, p.lostGpuSeconds());
        preemptions++;
        lostGpuSeconds += lost;
        if (p.victimAccount() != null) {
            lostByTeam.merge(p.victimAccount(), lost, Double::sum);
        }
        if (p.allocated()) {
            preemptionsAllocated++;
            lostAllocatedGpuSeconds += lost;
            if (p.victimAccount() != null) {
                series(lostAllocated, p.victimAccount()).addInterval(p.lostFromSeconds(), p.atSeconds(), p.gpus());
            }
        } else {
            lostUnallocatedGpuSeconds += lost;
        }
        if (p.resumable()) {
            lostResumableGpuSeconds += lost;
        } else {
            lostNonResumableGpuSeconds += lost;
        }
        cycles.record(p.atSeconds(), p.preemptorAccount(), p.victimAccount());
    }

    /**
     * A preemption as the metrics see it.
     *
     * @param lostFromSeconds start of the work the victim lost (its last checkpoint, or its placement)
     * @param atSeconds when it was stopped
     * @param lostGpuSeconds what it lost: GPUs x (at - lostFrom), as the caller computed it
     * @param allocated the victim's charge mode
     */
    public record Preemption(String victimAccount, String preemptorAccount, double lostFromSeconds, double atSeconds,
            int gpus, double lostGpuSeconds, boolean allocated, boolean resumable) {
    }

    /**
     * GPU-seconds per hour the team's allocated jobs held and kept: delivered minus the work its
     * allocated victims lost, in the hours that work was done.
     */
    public double[] deliveredUseful(String team) {
        double[] d = delivered(team);
        double[] lost = series(lostAllocated, team).toArray();
        for (int i = 0; i < d.length; i++) {
            d[i] = Math.max(0, d[i] - lost[i]);
        }
        return d;
    }

    public WaitStats waits() {
        return waits;
    }

    /** Entitled GPU-seconds per hour of a team. */
    public double[] entitlement(String team) {
        HourlySeries s = HourlySeries.hourly(periodSeconds);
        s.addInterval(0, periodSeconds, fractions.getOrDefault(team, 0.0) * capacityGpus);
        return s.toArray();
    }

    /** GPU-seconds per hour held by the team's unallocated jobs. */
    public double[] unallocated(String team) {
        return series(unallocatedByTeam, team).toArray();
    }

    /** GPU-seconds per hour held by the team's allocated jobs. */
    public double[] delivered(String team) {
        return series(delivered, team).toArray();
    }

    public double[] demand(String team) {
        return series(demand, team).toArray();
    }

    /** GPU-seconds held per hour by all jobs. */
    public double[] heldPerHour() {
        return held.toArray();
    }

    public List<String> teams() {
        List<String> all = new ArrayList<>(delivered.keySet());
        for (Map<String, HourlySeries> m : List.of(demand, unallocatedByTeam)) {
            for (String t : m.keySet()) {
                if (!all.contains(t)) {
                    all.add(t);
                }
            }
        }
        Collections.sort(all);
        return all;
    }

    public Result result() {
        List<OwedHours.Team> teams = new ArrayList<>();
        List<OwedHours.Team> useful = new ArrayList<>();
        for (String t : teams()) {
            double[] ent = entitlement(t);
            double[] dem = demand(t);
            teams.add(OwedHours.team(t, ent, dem, delivered(t)));
            useful.add(OwedHours.team(t, ent, dem, deliveredUseful(t)));
        }
        double available = (double) capacityGpus * periodSeconds;
        double heldTotal = held.total();
        Map<JobClass, Double> p50 = new EnumMap<>(JobClass.class);
        Map<JobClass, Double> p90 = new EnumMap<>(JobClass.class);
        Map<JobClass, Integer> counts = new EnumMap<>(JobClass.class);
        for (JobClass c : JobClass.values()) {
            p50.put(c, waits.p50(c));
            p90.put(c, waits.p90(c));
            counts.put(c, waits.count(c));
        }
        return new Result(clamp01(heldTotal / available), OwedHours.summarize(teams),
                heldTotal <= 0 ? 0.0 : clamp01(unallocated.total() / heldTotal), p50, p90, counts, preemptions,
                lostGpuSeconds / 3600.0, clamp01(idleWhileWaiting.total() / available), heldTotal / 3600.0,
                available / 3600.0, goodput(OwedHours.summarize(useful), heldTotal, available));
    }

    private Goodput goodput(OwedHours.Summary useful, double heldTotal, double available) {
        double[] hol = headOfLine.sortedWaits(JobClass.LARGE);
        Map<String, Double> lostHours = new TreeMap<>();
        lostByTeam.forEach((t, v) -> lostHours.put(t, v / 3600.0));
        return new Goodput(useful, preemptionsAllocated, preemptions - preemptionsAllocated,
                heldTotal <= 0 ? 0.0 : preemptions / (heldTotal / 3600.0) * 1000,
                lostAllocatedGpuSeconds / 3600.0, lostUnallocatedGpuSeconds / 3600.0,
                lostResumableGpuSeconds / 3600.0, lostNonResumableGpuSeconds / 3600.0,
                lostGpuSeconds / available, (heldTotal - lostGpuSeconds) / 3600.0,
                headOfLine.p90(JobClass.LARGE), hol.length == 0 ? 0.0 : hol[hol.length - 1], hol.length,
                headOfLineAllocated.p90(JobClass.LARGE), headOfLineAllocated.count(JobClass.LARGE),
                waitsAllocated.p50(JobClass.DEBUG), waitsAllocated.p90(JobClass.DEBUG),
                waitsUnallocated.p50(JobClass.DEBUG), waitsUnallocated.p90(JobClass.DEBUG), cycles.cycles(), lostHours);
    }

    private static double clamp01(double v) {
        return Math.max(0, Math.min(1, v));
    }

    /** The figures of one period. Fractions are in 0..1. */
    public record Result(double occupancy, OwedHours.Summary owed, double unallocatedShare,
            Map<JobClass, Double> waitP50Seconds, Map<JobClass, Double> waitP90Seconds,
            Map<JobClass, Integer> jobsPerClass, int preemptions, double lostGpuHours, double fragmentation,
            double heldGpuHours, double availableGpuHours, Goodput goodput) {
        public Result {
            waitP50Seconds = Collections.unmodifiableMap(new LinkedHashMap<>(waitP50Seconds));
            waitP90Seconds = Collections.unmodifiableMap(new LinkedHashMap<>(waitP90Seconds));
            jobsPerClass = Collections.unmodifiableMap(new LinkedHashMap<>(jobsPerClass));
        }
    }

    /**
     * What the cluster kept of the work it did, and what preemption cost.
     *
     * @param owedUseful owed hours against useful delivery ({@link #deliveredUseful})
     * @param preemptionsPer1000GpuHours preemptions per 1,000 GPU-hours held
     * @param lostShare lost GPU-hours / available GPU-hours
     * @param usefulGpuHours GPU-hours held minus lost
     * @param largeHeadOfLineJobs large jobs with a head-of-line time (those that got a reservation)
     * @param largeHeadOfLineAllocatedP90Seconds the same p90 over allocated large jobs only
     * @param largeHeadOfLineAllocatedJobs allocated large jobs with a head-of-line time
     * @param cycles preemption cycles ({@link PreemptionCycles})
     * @param lostGpuHoursByTeam lost GPU-hours by the victim's team (teams that lost nothing absent)
     */
    public record Goodput(OwedHours.Summary owedUseful, int preemptionsAllocated, int preemptionsUnallocated,
            double preemptionsPer1000GpuHours, double lostGpuHoursAllocated, double lostGpuHoursUnallocated,
            double lostGpuHoursResumable, double lostGpuHoursNonResumable, double lostShare, double usefulGpuHours,
            double largeHeadOfLineP90Seconds, double largeHeadOfLineMaxSeconds, int largeHeadOfLineJobs,
            double largeHeadOfLineAllocatedP90Seconds, int largeHeadOfLineAllocatedJobs,
            double debugAllocatedP50Seconds, double debugAllocatedP90Seconds, double debugUnallocatedP50Seconds,
            double debugUnallocatedP90Seconds, int cycles, Map<String, Double> lostGpuHoursByTeam) {
        public Goodput {
            lostGpuHoursByTeam = Collections.unmodifiableMap(new TreeMap<>(lostGpuHoursByTeam));
        }

        /** Lost GPU-hours of one team's jobs (allocated or not). */
        public double lostGpuHours(String team) {
            return lostGpuHoursByTeam.getOrDefault(team, 0.0);
        }
    }
}
