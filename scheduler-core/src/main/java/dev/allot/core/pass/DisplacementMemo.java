package dev.allot.core.pass;

import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * The policy's answer on displacing by account pair, asked once per pass: whether it allows it
 * (asked for every pair a search meets) and, for victims taken, the verdict with its reason.
 * Account ids are only given at submit, so none appears during the pass.
 */
final class DisplacementMemo {
    private final PassContext p;
    private final ClusterState cs;
    private final SchedulingPolicy policy;
    /** By preemptor then victim account id: 0 not asked yet, 1 allowed, 2 not. */
    private final byte[][] allowed;
    /** The same for unallocated victims, which only the no-thrash guard may bar. */
    private final byte[][] unguarded;
    private final PreemptionVerdict[][] verdicts;
    /** By preemptor account id, for unallocated and for allocated victims: 0 not asked yet, 1 someone, 2 no one. */
    private final byte[] anyUnallocated;
    private final byte[] anyAllocated;
    private int[] unallocatedVictimAccounts;
    private int[] allocatedVictimAccounts;
    /** By account id, one running preemptible allocated job (the policy is asked with jobs), built on first use. */
    private Job[] allocatedVictimOf;
    /** By account id, the running jobs preemptible at the first question (in sequence order), built on first use. */
    private List<List<Job>> byAccount;

    List<List<Job>> victimsByAccount() {
        if (byAccount == null) {
            ArrayList<List<Job>> lists = new ArrayList<>(allowed.length);
            for (int a = 0; a < allowed.length; a++) {
                lists.add(new ArrayList<>(2));
            }
            for (Job r : cs.preemptible.countedJobs()) {
                if (r.accountId() < lists.size()) {
                    lists.get(r.accountId()).add(r);
                }
            }
            for (List<Job> l : lists) {
                l.sort(java.util.Comparator.comparingLong(Job::seq));
            }
            byAccount = lists;
        }
        return byAccount;
    }

    DisplacementMemo(PassContext p, int accounts) {
        this.p = p;
        this.cs = p.cs;
        this.policy = p.policy;
        allowed = new byte[accounts][];
        unguarded = new byte[accounts][];
        verdicts = new PreemptionVerdict[accounts][];
        anyUnallocated = new byte[accounts];
        anyAllocated = new byte[accounts];
    }

    private boolean guarded(int preemptor, int victim) {
        return cs.thrash.blocks(preemptor, victim, p.t, p.config.goodput().noThrashMillis());
    }

    private static byte[] row(byte[][] m, int i) {
        if (m[i] == null) {
            m[i] = new byte[m.length];
        }
        return m[i];
    }

    boolean allowed(Job preemptor, Job victim) {
        if (preemptor.accountId() == victim.accountId()) {
            return false;
        }
        byte[] byVictim = row(allowed, preemptor.accountId());
        byte a = byVictim[victim.accountId()];
        if (a == 0) {
            // the policy first: its no is the common answer, and cheaper than the guard's lookup
            a = policyAllows(preemptor, victim) && !guarded(preemptor.accountId(), victim.accountId()) ? (byte) 1
                    : (byte) 2;
            byVictim[victim.accountId()] = a;
        }
        return a == 1;
    }

    /** The policy's answer by accounts if it gives one ({@link dev.allot.core.policy.AccountPairs}), else with the jobs. */
    private boolean policyAllows(Job preemptor, Job victim) {
        dev.allot.core.policy.AccountPairs pairs = p.accountPairs();
        return pairs != null ? pairs.allows(preemptor.account(), victim.account())
                : policy.allowsDisplacing(preemptor, victim, p);
    }

    boolean unguarded(Job preemptor, int victimAccount) {
        byte[] byVictim = row(unguarded, preemptor.accountId());
        byte a = byVictim[victimAccount];
        if (a == 0) {
            a = guarded(preemptor.accountId(), victimAccount) ? (byte) 2 : (byte) 1;
            byVictim[victimAccount] = a;
        }
        return a == 1;
    }

    /** The guard now bars {@code preemptor}'s account from {@code victim}'s for the rest of the pass. */
    void barred(int preemptor, int victim) {
        row(allowed, preemptor)[victim] = 2;
        row(unguarded, preemptor)[victim] = 2;
        anyUnallocated[preemptor] = 0;
        anyAllocated[preemptor] = 0;
    }

    /**
     * Whether the preemptor may displace someone: unallocated work its account is not guarded
     * from, or, while the policy lets it displace allocated work now, allocated work it may
     * displace. The two parts are kept per account for the pass (the guard resets them); the
     * policy's live answer is asked each time.
     */
    boolean anyone(Job preemptor) {
        int a = preemptor.accountId();
        if (anyUnallocated[a] == 0) {
            anyUnallocated[a] = findUnallocated(preemptor) ? (byte) 1 : (byte) 2;
        }
        if (anyUnallocated[a] == 1) {
            return true;
        }
        if (!p.displacesAllocatedNow(preemptor)) {
            return false;
        }
        if (anyAllocated[a] == 0) {
            anyAllocated[a] = findAllocated(preemptor) ? (byte) 1 : (byte) 2;
        }
        return anyAllocated[a] == 1;
    }

    /** Account ids with preemptible work of the charge mode, built once per pass. */
    int[] victimAccounts(boolean unallocated) {
        int[] ids = unallocated ? unallocatedVictimAccounts : allocatedVictimAccounts;
        if (ids == null) {
            cs.preemptible.advanceTo(cs, p.t);
            int bound = Math.min(cs.preemptible.accountBound(), allowed.length);
            int n = 0;
            int[] found = new int[bound];
            for (int v = 0; v < bound; v++) {
                if (cs.preemptible.gpusOf(v, unallocated) > 0 && (unallocated || allocatedVictim(v) != null)) {
                    found[n++] = v;
                }
            }
            ids = java.util.Arrays.copyOf(found, n);
            if (unallocated) {
                unallocatedVictimAccounts = ids;
            } else {
                allocatedVictimAccounts = ids;
            }
        }
        return ids;
    }

    /** {@link #allowed} against account {@code v}'s work, asked with one of its jobs; false if it has none to take. */
    boolean allowedByPolicy(Job preemptor, int v) {
        Job c = allocatedVictim(v);
        return c != null && allowed(preemptor, c);
    }

    private boolean findUnallocated(Job preemptor) {
        for (int v : victimAccounts(true)) {
            if (unguarded(preemptor, v)) {
                return true;
            }
        }
        return false;
    }

    private boolean findAllocated(Job preemptor) {
        VictimAccounts.Sets sets = p.victimAccounts().raw(preemptor);
        if (sets != null) {
            return !VictimAccounts.isEmpty(sets.allocated());
        }
        return anyAllocatedWhere(preemptor, v -> true);
    }

    /**
     * Whether some account with preemptible allocated work that the policy lets the preemptor
     * displace, and the guard does not bar, satisfies {@code also} (asked only of those).
     */
    boolean anyAllocatedWhere(Job preemptor, java.util.function.IntPredicate also) {
        for (int v : victimAccounts(false)) {
            if (allowed(preemptor, allocatedVictim(v)) && also.test(v)) {
                return true;
            }
        }
        return false;
    }

    private Job allocatedVictim(int account) {
        if (allocatedVictimOf == null) {
            allocatedVictimOf = new Job[allowed.length];
            for (Job r : cs.preemptible.countedJobs()) {
                int a = r.accountId();
                // the lowest sequence number: the same job whatever the set's iteration order
                if (r.allocated() && a < allocatedVictimOf.length
                        && (allocatedVictimOf[a] == null || r.seq() < allocatedVictimOf[a].seq())) {
                    allocatedVictimOf[a] = r;
                }
            }
        }
        return allocatedVictimOf[account];
    }

    PreemptionVerdict verdict(Job preemptor, Job victim) {
        PreemptionVerdict[] byVictim = verdicts[preemptor.accountId()];
        if (byVictim == null) {
            byVictim = new PreemptionVerdict[verdicts.length];
            verdicts[preemptor.accountId()] = byVictim;
        }
        PreemptionVerdict v = byVictim[victim.accountId()];
        if (v == null) {
            v = policy.mayDisplace(preemptor, victim, p);
            byVictim[victim.accountId()] = v;
        }
        return v;
    }
}
