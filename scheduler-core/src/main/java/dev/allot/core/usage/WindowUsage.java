package dev.allot.core.usage;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.explain.AccountUsage;
import java.util.HashMap;
import java.util.Map;

/**
 * Every account's window usage on one cluster, rolled up over its subtree: charged and
 * unallocated GPU-seconds from the ledger, what it is owed, and the ratio the ranking sorts by.
 *
 * <p>Owed (entitled) GPU-seconds: the account's fraction of the tree now x the GPUs registered in
 * the cluster now x the time it has existed within the window (the whole window, or since it was
 * created if later). This is the accounting-service's definition of {@code budget-usage} too:
 * both read it from the same log (scheduler-core/README.md, "The ratio").
 */
public final class WindowUsage {
    private WindowUsage() {
    }

    /** By account (only looked up, never iterated). */
    public static HashMap<String, AccountUsage> of(String cluster, BudgetTree tree, UsageLedger ledger,
            int registeredGpus, long t) {
        HashMap<String, AccountUsage> out = HashMap.newHashMap(tree.size());
        for (String root : tree.roots()) {
            rollUp(cluster, tree, ledger, registeredGpus, root, t, out);
        }
        return out;
    }

    /** Seconds the account is owed for: the window, or since its creation if that is later. */
    public static double owedSeconds(long createdAtMillis, long windowMillis, long t) {
        long since = createdAtMillis == Long.MIN_VALUE ? windowMillis : t - createdAtMillis;
        return Math.max(0, Math.min(windowMillis, since)) / 1000.0;
    }

    private static double[] rollUp(String cluster, BudgetTree tree, UsageLedger ledger, int registeredGpus,
            String account, long t, Map<String, AccountUsage> out) {
        double charged = ledger.charged(cluster, account, t);
        double unallocated = ledger.unallocated(cluster, account, t);
        for (String c : tree.children(account)) {
            double[] sub = rollUp(cluster, tree, ledger, registeredGpus, c, t, out);
            charged += sub[0];
            unallocated += sub[1];
        }
        double fraction = tree.fraction(account);
        // seconds x GPUs x fraction, in this order (the accounting-service multiplies the same way)
        double entitled = owedSeconds(tree.createdAtMillis(account), ledger.windowMillis(), t) * registeredGpus
                * fraction;
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
