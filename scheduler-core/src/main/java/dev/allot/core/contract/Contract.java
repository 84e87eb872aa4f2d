package dev.allot.core.contract;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobRequest;
import java.util.Optional;

/** The scheduling contract: minimum runtime, charge mode, protected window. */
public final class Contract {

    /**
     * The largest minimum runtime a job may declare: 8 h. The core's default
     * ({@code SchedulerConfig.defaults()}), budget-service's submission check and the simulator's
     * default all read it from here.
     */
    public static final long MAX_MIN_RUNTIME_MILLIS = 8 * 3_600_000L;
    public static final long MAX_MIN_RUNTIME_SECONDS = MAX_MIN_RUNTIME_MILLIS / 1000;

    private Contract() {
    }

    /** Why a request is refused, or empty if it is acceptable. */
    public static Optional<String> validate(JobRequest r, long maxMinRuntimeMillis) {
        if (r.jobId().isBlank()) {
            return Optional.of("job id is blank");
        }
        if (r.account().isBlank()) {
            return Optional.of("account is blank");
        }
        if (r.replicas() < 1) {
            return Optional.of("a gang needs at least 1 replica, got " + r.replicas());
        }
        if (r.gpusPerReplica() < 1) {
            return Optional.of("a replica needs at least 1 GPU, got " + r.gpusPerReplica());
        }
        if (r.minRuntimeMillis() < 0) {
            return Optional.of("minimum runtime " + r.minRuntimeMillis() + " ms is negative");
        }
        if (r.minRuntimeMillis() > maxMinRuntimeMillis) {
            return Optional.of("minimum runtime " + r.minRuntimeMillis() / 60_000 + " min exceeds the maximum of "
                    + maxMinRuntimeMillis / 60_000 + " min");
        }
        return Optional.empty();
    }

    /** ALLOCATED when the minimum runtime is &gt; 0, else UNALLOCATED. */
    public static ChargeMode chargeMode(long minRuntimeMillis) {
        return minRuntimeMillis > 0 ? ChargeMode.ALLOCATED : ChargeMode.UNALLOCATED;
    }

    /** Placement + minimum runtime (placement itself for unallocated jobs). */
    public static long protectedUntil(long placedAtMillis, long minRuntimeMillis) {
        return placedAtMillis + Math.max(0, minRuntimeMillis);
    }
}
