package dev.allot.core.pass;

import dev.allot.core.placement.GangFit;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.Job;
import dev.allot.core.state.WaitingShapes;
import java.util.ArrayList;
import java.util.HashMap;

/**
 * Preemption failures shared among accounts by what they may displace. A search's usable victims
 * are the preemptible jobs of the accounts in the preemptor's {@link VictimAccounts.Sets}, so a
 * search that failed for a job of one account fails for a job of another whose sets lie within
 * the first's, for a shape no smaller on no more nodes. Failures kept per account alone
 * ({@link WalkShortcuts.Failures}) made the walk take every account to its own first failure: on
 * BenchWorld about 600 failed searches per incremental pass late in its run, nine in ten of them
 * within the sets and shapes of a search that had already failed (the fair tree nests them: an
 * account ranked after its sibling may displace no more than the sibling may).
 *
 * <p>Nodes: two such jobs' eligible nodes differ only in the reservation one may backfill and the
 * other not, so failures are kept by that: list 1 for jobs that may backfill the cluster's one
 * reservation, list 0 for jobs that may not (or when none stands); a query of list 0 is answered by
 * both. Kept only once reservations are final and at most one stands, so the nodes a job may use
 * no longer change in the pass; dropped when the pass displaces anything, which frees GPUs and
 * changes who may displace whom. Between displacements the victims only grow fewer (a job placed
 * in the pass is no victim), free GPUs only fewer and the sets only smaller (the share rule turns
 * yes to no as an account's placements add up), so a failure stays a failure.
 */
final class SharedFailures {

    /** One pair of sets, and the shapes that failed for jobs with exactly those sets. */
    private static final class Entry {
        final VictimAccounts.Sets sets;
        final FailedShapes[] byMask = {new FailedShapes(), new FailedShapes()};

        Entry(VictimAccounts.Sets sets) {
            this.sets = sets;
        }

        boolean dominates(int mask, int replicas, int gpus) {
            return byMask[1].dominates(replicas, gpus) || mask == 0 && byMask[0].dominates(replicas, gpus);
        }
    }

    private final PassContext p;
    private final ArrayList<Entry> entries = new ArrayList<>();
    private final HashMap<VictimAccounts.Sets, Entry> bySets = new HashMap<>();
    /** By mask, then whether the share rule lets it take allocated work, then account id: 0 not asked, 1 some victim for one GPU, 2 none. */
    private byte[][] anyVictim;
    private int seen;

    SharedFailures(PassContext p) {
        this.p = p;
    }

    /** Drops what a displacement made stale. */
    private void fresh() {
        if (seen != p.displacements()) {
            entries.clear();
            bySets.clear();
            anyVictim = null;
            seen = p.displacements();
        }
    }

    /** The job's sets if it may take part (the caller has checked that reservations are final), else null. */
    private VictimAccounts.Sets sets(Job j) {
        if (p.cs.reservations.size() > 1 || p.cs.inLaneGroup(j)) {
            return null; // (lane jobs reach held nodes too: they keep to their own failures)
        }
        return p.victimAccounts(j);
    }

    /** 1 if the job may backfill the one reservation, 0 if not or none stands, -1 if it holds it. */
    private int mask(Job j) {
        if (p.cs.reservations.isEmpty()) {
            return 0;
        }
        Reservation r = p.cs.reservations.all().iterator().next();
        if (r.jobId().equals(j.jobId())) {
            return -1;
        }
        return GangFit.mayBackfill(p, j, r) ? 1 : 0;
    }

    /**
     * 1 if some job of the account might backfill the one reservation (as {@link GangFit#mayBackfill},
     * from the account's shortest known duration and shortest minimum runtime; yes when unsure), else 0.
     */
    private int accountMask(WaitingShapes.AccountWaiting w) {
        if (p.cs.reservations.isEmpty()) {
            return 0;
        }
        Reservation r = p.cs.reservations.all().iterator().next();
        long left = r.dueAtMillis() - p.t;
        long duration = w.shortestDuration();
        if (duration >= 0 && duration <= left) {
            return 1;
        }
        long minRuntime = w.shortestMinRuntime();
        return minRuntime >= 0 && (!p.policy.contractsProtect() || minRuntime <= left) && p.holderMayPreempt(r) ? 1 : 0;
    }

    /** A search of the job for this shape (1 x 1: for anything at all) found nothing to displace. */
    void failed(Job j, int replicas, int gpus) {
        VictimAccounts.Sets s = sets(j);
        int m = s == null ? -1 : mask(j);
        if (m >= 0) {
            fresh();
            Entry e = bySets.get(s);
            if (e == null) {
                e = new Entry(s);
                bySets.put(s, e);
                entries.add(e);
            }
            e.byMask[m].add(replicas, gpus);
        }
    }

    /** Whether a search of the job for this shape would find nothing: one with no fewer victims, on no fewer nodes, failed. */
    boolean dominates(Job j, int replicas, int gpus) {
        VictimAccounts.Sets s = sets(j);
        int m = s == null ? -1 : mask(j);
        if (m < 0) {
            return false;
        }
        fresh();
        return covered(s, m, replicas, gpus);
    }

    private boolean covered(VictimAccounts.Sets s, int mask, int replicas, int gpus) {
        for (int i = entries.size() - 1; i >= 0; i--) { // the latest first: the walk's nearest ranks
            Entry e = entries.get(i);
            if (e.dominates(mask, replicas, gpus) && s.within(e.sets)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether every shape of the account ({@code fewest}, see {@link FailedShapes#dominatesAll}) is
     * held by its own failures or, for jobs of {@code any}'s account, by the shared ones.
     */
    boolean dominatesAll(Job any, WaitingShapes.AccountWaiting w, FailedShapes own, int[] fewest) {
        VictimAccounts.Sets s = sets(any);
        if (s == null) {
            return false;
        }
        int m = accountMask(w);
        fresh();
        for (int gpus = 0; gpus < fewest.length; gpus++) {
            int r = fewest[gpus];
            if (r > 0 && !own.dominates(r, gpus) && !covered(s, m, r, gpus)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a full visit of the job, whose search {@link #dominates} says fails, would have found
     * no victim at all first ({@code Preemptor.cannotDisplaceAnything}: its account then records a
     * 1 x 1 failure instead of its shape). Asked once per account and kind of node access between
     * displacements.
     */
    boolean nothingToDisplace(Job j) {
        int m = mask(j);
        fresh();
        if (anyVictim == null) {
            anyVictim = new byte[4][p.jobs.accountCount()];
        }
        byte[] known = anyVictim[m * 2 + (p.mayDisplaceAllocated(j) ? 1 : 0)];
        int a = j.accountId();
        if (known[a] == 0) {
            known[a] = p.anyDisplaceableVictim(j, GangFit.nodesFor(p, j, 1)) ? (byte) 1 : (byte) 2;
        }
        return known[a] == 2;
    }
}
