package dev.allot.core;

/**
 * How the core keeps preemption from throwing work away. Use {@link #defaults()}.
 *
 * @param restartMillis the work, per GPU, a restart costs beyond what the victim loses since its
 *     last checkpoint (loading, warming up): victims are chosen by work lost plus this
 *     ({@code preemption.VictimOrder})
 * @param noThrashMillis after account A displaces a job of account B, B's jobs may not displace
 *     A's for this long, and a job placed by displacing others is not itself displaced for this
 *     long: no preemption cycles (0: off)
 * @param maxLossPerGpuMillis an allocated job whose release would throw away more than this per
 *     GPU (time since its last checkpoint, its whole run if it is not resumable) is not displaced:
 *     such a preemption does not pay (0: no cap)
 * @param unallocatedBesideBacklog whether unallocated work may take free GPUs of open nodes while
 *     allocated work waits (false: it runs on nodes held for the debug lane and on reserved nodes
 *     it may backfill, so the next allocated placement does not throw it away; with no allocated
 *     work waiting it goes anywhere)
 * @param laneDisplacesAllocated whether debug-lane jobs may displace allocated work (false by default:
 *     where the cluster holds nodes for the lane they take free GPUs, the lane's held nodes and
 *     unallocated work only; a debug job is short, so waiting for the lane's next end costs less than
 *     another job's restart. A cluster that holds no lane node lets them, as any job of their account)
 * @param heldReservations whether a reservation of several nodes whose holder may preempt is held by
 *     its job until it starts (true by default; see scheduler-core/README "Reservations"): not taken
 *     over, its nodes kept, release times judged at the time they happen
 */
public record Goodput(long restartMillis, long noThrashMillis, long maxLossPerGpuMillis, boolean unallocatedBesideBacklog,
        boolean laneDisplacesAllocated, boolean heldReservations) {
    public Goodput(long restartMillis, long noThrashMillis, long maxLossPerGpuMillis, boolean unallocatedBesideBacklog) {
        this(restartMillis, noThrashMillis, maxLossPerGpuMillis, unallocatedBesideBacklog, false, true);
    }

    public Goodput {
        if (restartMillis < 0 || noThrashMillis < 0 || maxLossPerGpuMillis < 0) {
            throw new IllegalArgumentException("negative goodput tunable");
        }
    }

    public static Goodput defaults() {
        return new Goodput(5 * 60_000L, SchedulerConfig.HOUR, 2 * SchedulerConfig.HOUR, false);
    }

    /** No goodput rule: restart free, no thrash guard, no loss cap, unallocated work anywhere. */
    public static Goodput none() {
        return new Goodput(0, 0, 0, true, true, false);
    }

    public Goodput withMaxLossPerGpu(long millis) {
        return new Goodput(restartMillis, noThrashMillis, millis, unallocatedBesideBacklog, laneDisplacesAllocated, heldReservations);
    }

    public Goodput withNoThrash(long millis) {
        return new Goodput(restartMillis, millis, maxLossPerGpuMillis, unallocatedBesideBacklog, laneDisplacesAllocated, heldReservations);
    }

    public Goodput withUnallocatedBesideBacklog(boolean on) {
        return new Goodput(restartMillis, noThrashMillis, maxLossPerGpuMillis, on, laneDisplacesAllocated, heldReservations);
    }

    public Goodput withLaneDisplacingAllocated(boolean on) {
        return new Goodput(restartMillis, noThrashMillis, maxLossPerGpuMillis, unallocatedBesideBacklog, on, heldReservations);
    }

    public Goodput withHeldReservations(boolean on) {
        return new Goodput(restartMillis, noThrashMillis, maxLossPerGpuMillis, unallocatedBesideBacklog,
                laneDisplacesAllocated, on);
    }
}
