package dev.allot.core.ordering;

import dev.allot.core.explain.AccountRatio;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Hierarchical fair-share ranking (Slurm's Fair Tree). The numbered rules, as in README.md:
 * <ol>
 *   <li>Siblings are sorted by ratio = charged / entitled over the window, lower first
 *       ({@link #SIBLING_ORDER}, first key).</li>
 *   <li>Sibling ties: larger fraction (owed more) first, then account name (second and third keys).</li>
 *   <li>A depth-first walk over the sorted tree gives each account its rank; every account under a
 *       better-ranked sibling comes before every account under a worse-ranked one, and an inner
 *       account's own jobs come before its children's (pre-order).</li>
 * </ol>
 * Rules 4-6 (priority, submit time, job id within an account) are
 * {@code SchedulingPolicy.PRIORITY_THEN_SUBMIT}. Accounts missing from the tree rank last.
 */
public final class FairTree {

    /** Rules 1 and 2. Spelled out: every pass sorts every account's children with it. */
    static final Comparator<AccountUsage> SIBLING_ORDER = (a, b) -> {
        int c = Double.compare(a.ratio(), b.ratio());
        if (c == 0) {
            c = Double.compare(b.fraction(), a.fraction()); // larger fraction first
        }
        return c != 0 ? c : a.account().compareTo(b.account());
    };

    private FairTree() {
    }

    public static Ranking rank(BudgetView tree, Function<String, AccountUsage> usage) {
        HashMap<String, Integer> rank = new HashMap<>();
        HashMap<String, List<AccountRatio>> sortedSiblings = new HashMap<>();
        walk(tree, null, tree.roots(), usage, rank, sortedSiblings);
        return new Ranking(tree, rank, sortedSiblings);
    }

    private static void walk(BudgetView tree, String parent, List<String> siblings,
            Function<String, AccountUsage> usage, Map<String, Integer> rank, Map<String, List<AccountRatio>> sorted) {
        if (siblings.isEmpty()) {
            return;
        }
        ArrayList<AccountUsage> us = new ArrayList<>(siblings.size());
        for (String s : siblings) {
            us.add(usage.apply(s));
        }
        us.sort(SIBLING_ORDER);
        ArrayList<AccountRatio> ratios = new ArrayList<>(us.size());
        for (AccountUsage u : us) {
            ratios.add(new AccountRatio(u.account(), u.ratio(), u.chargedGpuSeconds(), u.entitledGpuSeconds()));
        }
        sorted.put(parent == null ? "" : parent, ratios);
        for (AccountUsage u : us) {
            rank.put(u.account(), rank.size()); // rule 3: pre-order
            walk(tree, u.account(), tree.children(u.account()), usage, rank, sorted);
        }
    }

    /** The result of one ranking: ranks plus the sorted sibling lists the explanations quote. */
    public static final class Ranking implements AccountRanking {
        private final BudgetView tree;
        private final Map<String, Integer> rank;
        private final Map<String, List<AccountRatio>> sortedSiblings;

        Ranking(BudgetView tree, Map<String, Integer> rank, Map<String, List<AccountRatio>> sortedSiblings) {
            this.tree = tree;
            this.rank = rank;
            this.sortedSiblings = sortedSiblings;
        }

        @Override
        public int rankOf(String account) {
            Integer r = rank.get(account);
            return r == null ? Integer.MAX_VALUE : r;
        }

        /** The siblings that sorted ahead of each account on the path, root level first. */
        @Override
        public List<AccountRatio> aheadOf(String account) {
            if (!rank.containsKey(account)) {
                return List.of();
            }
            ArrayList<AccountRatio> ahead = new ArrayList<>();
            String parent = null;
            for (String a : tree.path(account)) {
                List<AccountRatio> sibs = sortedSiblings.get(parent == null ? "" : parent);
                if (sibs != null) {
                    for (AccountRatio r : sibs) {
                        if (r.account().equals(a)) {
                            break;
                        }
                        ahead.add(r);
                    }
                }
                parent = a;
            }
            return ahead;
        }
    }
}
