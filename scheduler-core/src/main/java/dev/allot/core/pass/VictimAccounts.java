package dev.allot.core.pass;

import dev.allot.core.policy.AccountPairs;
import dev.allot.core.state.Job;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * For one pass, the accounts whose running work a preemptor may displace, as two sets of account
 * ids: accounts whose allocated jobs ({@link PassContext#displaceable}'s policy answer, the
 * no-thrash guard, the share rule and the lane's rule) and accounts whose unallocated jobs (the
 * guard) it may take. A victim search's usable victims are the preemptible jobs of these
 * accounts, so a preemptor whose sets lie within another's finds nothing the other did not
 * ({@link SharedFailures}).
 *
 * <p>Built from the policy's {@link AccountPairs#allowedSubtrees} (whole subtrees of the budget
 * tree as bitsets, built once per pass) rather than account pair by pair. Kept per account until
 * the pass displaces something (the guard and the victims change only then); the share rule's
 * part, which a placement may turn from yes to no, is asked anew each time.
 */
final class VictimAccounts {
    /** The two sets, as bitset words over account ids. */
    record Sets(long[] allocated, long[] unallocated) {
        /** Whether both sets lie within {@code other}'s. */
        boolean within(Sets other) {
            return subset(allocated, other.allocated) && subset(unallocated, other.unallocated);
        }

        private static boolean subset(long[] a, long[] b) {
            for (int w = 0; w < a.length; w++) {
                if ((a[w] & ~b[w]) != 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Sets s && Arrays.equals(allocated, s.allocated) && Arrays.equals(unallocated, s.unallocated);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(allocated) + Arrays.hashCode(unallocated);
        }
    }

    private final PassContext p;
    private final DisplacementMemo memo;
    private final int words;
    /** Account ids at or under each account of the tree, and the ids of accounts outside it. */
    private HashMap<String, long[]> under;
    private long[] outsideTree;
    private long[] allocatedVictims;
    private long[] unallocatedVictims;
    private final long[] none;
    /** By account id: its sets with allocated victims (before the share rule) and without; kept until a displacement. */
    private Sets[] withAllocated;
    private Sets[] withoutAllocated;
    private int seen = -1;

    VictimAccounts(PassContext p, DisplacementMemo memo) {
        this.p = p;
        this.memo = memo;
        this.words = (p.jobs.accountCount() + 63) >>> 6;
        this.none = new long[words];
    }

    /** The preemptor's sets now, or null if the policy does not give its answer as subtrees. */
    Sets of(Job preemptor) {
        Sets raw = raw(preemptor);
        if (raw == null) {
            return null;
        }
        return p.mayDisplaceAllocated(preemptor) ? raw : withoutAllocated[preemptor.accountId()];
    }

    /** The sets before the share rule and the lane's rule (allocated victims as the policy and the guard allow), or null. */
    Sets raw(Job preemptor) {
        AccountPairs pairs = p.accountPairs();
        if (pairs == null) {
            return null;
        }
        if (seen != p.displacements()) {
            withAllocated = new Sets[p.jobs.accountCount()];
            withoutAllocated = new Sets[withAllocated.length];
            seen = p.displacements();
        }
        int a = preemptor.accountId();
        if (withAllocated[a] == null) {
            List<String> subtrees = pairs.allowedSubtrees(preemptor.account());
            if (subtrees == null) {
                return null;
            }
            HashMap<String, long[]> members = under();
            long[] unallocated = unallocatedVictims().clone();
            long[] allocated = new long[words];
            for (String s : subtrees) {
                long[] ids = members.get(s);
                for (int w = 0; ids != null && w < words; w++) {
                    allocated[w] |= ids[w];
                }
            }
            for (int v = nextSet(outsideTree, 0); v >= 0; v = nextSet(outsideTree, v + 1)) {
                if (memo.allowedByPolicy(preemptor, v)) {
                    allocated[v >>> 6] |= 1L << v;
                }
            }
            long[] victims = allocatedVictims();
            for (int w = 0; w < words; w++) {
                allocated[w] &= victims[w];
            }
            clear(allocated, a); // (never its own account)
            p.cs.thrash.forEachBlockedFor(a, p.t, p.config.goodput().noThrashMillis(), v -> {
                clear(allocated, v);
                clear(unallocated, v);
            });
            withAllocated[a] = new Sets(allocated, unallocated);
            withoutAllocated[a] = new Sets(none, unallocated);
        }
        return withAllocated[a];
    }

    static boolean isEmpty(long[] bits) {
        for (long w : bits) {
            if (w != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code test} holds for some id in the set (in id order, stopping at the first). */
    static boolean any(long[] bits, java.util.function.IntPredicate test) {
        for (int w = 0; w < bits.length; w++) {
            for (long b = bits[w]; b != 0; b &= b - 1) {
                if (test.test(w << 6 | Long.numberOfTrailingZeros(b))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void clear(long[] bits, int i) {
        if (i >>> 6 < bits.length) {
            bits[i >>> 6] &= ~(1L << i);
        }
    }

    private static int nextSet(long[] bits, int from) {
        for (int w = from >>> 6; w < bits.length; w++) {
            long word = w == from >>> 6 ? bits[w] & (-1L << from) : bits[w];
            if (word != 0) {
                return w << 6 | Long.numberOfTrailingZeros(word);
            }
        }
        return -1;
    }

    private HashMap<String, long[]> under() {
        if (under == null) {
            under = new HashMap<>();
            outsideTree = new long[words];
            int accounts = p.jobs.accountCount();
            for (int k = 0; k < accounts; k++) {
                List<String> path = p.budgets().path(p.jobs.accountName(k));
                if (path.isEmpty()) {
                    outsideTree[k >>> 6] |= 1L << k;
                }
                for (String a : path) {
                    under.computeIfAbsent(a, x -> new long[words])[k >>> 6] |= 1L << k;
                }
            }
        }
        return under;
    }

    private long[] allocatedVictims() {
        if (allocatedVictims == null) {
            allocatedVictims = bits(memo.victimAccounts(false));
        }
        return allocatedVictims;
    }

    private long[] unallocatedVictims() {
        if (unallocatedVictims == null) {
            unallocatedVictims = bits(memo.victimAccounts(true));
        }
        return unallocatedVictims;
    }

    private long[] bits(int[] ids) {
        long[] b = new long[words];
        for (int v : ids) {
            b[v >>> 6] |= 1L << v;
        }
        return b;
    }
}
