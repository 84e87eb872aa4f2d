package dev.allot.core.usage;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.budget.EntitlementHistory;
import dev.allot.core.explain.AccountUsage;
import java.util.HashMap;
import java.util.Map;

/**
 * Every account's window usage on one cluster, rolled up over its subtree: charged and
 * unallocated GPU-seconds from the ledger, entitled GPU-seconds from the entitlement history,
 * and the ratio the ranking sorts by.
 */
public final class WindowUsage {
    private WindowUsage() {
    }

    /** By account (only looked up, never iterated). */
    public static HashMap<String, AccountUsage> of(String cluster, BudgetTree tree, UsageLedger ledger,
            EntitlementHistory entitlement, long t) {
        HashMap<String, AccountUsage> out = HashMap.newHashMap(tree.size());
        long from = ledger.windowStart(t);
        for (String root : tree.roots()) {
            rollUp(cluster, tree, ledger, entitlement, root, from, t, out);
        }
        return out;
    }

    private static double[] rollUp(String cluster, BudgetTree tree, UsageLedger ledger, EntitlementHistory entitlement,
            String account, long from, long t, Map<String, AccountUsage> out) {
        double charged = ledger.charged(cluster, account, t);
        double unallocated = ledger.unallocated(cluster, account, t);
        for (String c : tree.children(account)) {
            double[] sub = rollUp(cluster, tree, ledger, entitlement, c, from, t, out);
            charged += sub[0];
            unallocated += sub[1];
        }
        double entitled = entitlement.entitledGpuSeconds(account, from, t);
        double fraction = tree.fraction(account);
        double ratio;
        if (charged == 0) {
            ratio = fraction > 0 ? 0 : Double.POSITIVE_INFINITY;
        } else {
            ratio = entitled > 0 ? charged / entitled : Double.POSITIVE_INFINITY;
        }
        out.put(account, new AccountUsage(account, cluster, charged, unallocated, entitled, ratio, fraction));
        return new double[] {charged, unallocated};
    }
}
