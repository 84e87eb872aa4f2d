package dev.allot.simulator.scenario;

import dev.allot.simulator.trace.TraceJob;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The seeded rule that gives trace jobs without a declared contract a minimum runtime and a
 * resumable flag. For each such job, with a generator seeded by (seed, job id) so the answer does
 * not depend on the order jobs are read in:
 * <ol>
 *   <li>with probability {@code unallocatedFraction} the job is unallocated: minimum runtime 0
 *       (free, never protected) and resumable;</li>
 *   <li>otherwise it is allocated with a minimum runtime drawn uniformly in whole minutes from
 *       [{@code minHours}, {@code maxHours}] hours, and resumable with probability
 *       {@code resumableFraction}.</li>
 * </ol>
 * A value the trace declares (CSV {@code min_runtime_s}, {@code resumable}) is kept as is.
 * Defaults: 10% unallocated, 80% of the others resumable, minimum runtime 1 to 8 h.
 */
public record ContractRule(String name, double unallocatedFraction, double resumableFraction, double minHours,
        double maxHours) {

    public ContractRule {
        if (unallocatedFraction < 0 || unallocatedFraction > 1 || resumableFraction < 0 || resumableFraction > 1) {
            throw new IllegalArgumentException("fractions must be in 0..1");
        }
        if (minHours < 0 || maxHours < minHours) {
            throw new IllegalArgumentException("need 0 <= minHours <= maxHours");
        }
    }

    public static ContractRule defaults(double maxHours) {
        return new ContractRule("default", 0.10, 0.80, Math.min(1.0, maxHours), maxHours);
    }

    public ContractRule named(String newName) {
        return new ContractRule(newName, unallocatedFraction, resumableFraction, minHours, maxHours);
    }

    /** One line for reports. */
    public String describe() {
        return String.format(Locale.ROOT, "%.0f%% unallocated, %.0f%% of allocated resumable, min runtime %s-%s h",
                unallocatedFraction * 100, resumableFraction * 100, trim(minHours), trim(maxHours));
    }

    private static String trim(double h) {
        return h == Math.rint(h) ? Long.toString((long) h) : String.format(Locale.ROOT, "%.2f", h);
    }

    public SimJob apply(TraceJob t, long seed) {
        long min = t.minRuntimeSeconds();
        Boolean resumable = t.resumable();
        if (min < 0 || resumable == null) {
            SplittableRandom r = Seeds.random(seed, "contract", t.jobId());
            boolean unallocated = r.nextDouble() < unallocatedFraction;
            long lo = Math.round(minHours * 60);
            long hi = Math.round(maxHours * 60);
            long minutes = lo + (hi > lo ? r.nextLong(hi - lo + 1) : 0);
            boolean res = r.nextDouble() < resumableFraction;
            if (min < 0) {
                min = unallocated ? 0 : minutes * 60;
            }
            if (resumable == null) {
                resumable = unallocated || res;
            }
        }
        return new SimJob(t.jobId(), t.team(), t.submitSeconds(), t.replicas(), t.gpusPerReplica(), t.durationSeconds(),
                min, resumable, t.debug());
    }
}
