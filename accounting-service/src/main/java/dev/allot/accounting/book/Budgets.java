package dev.allot.accounting.book;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.budget.Shares;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.core.usage.WindowUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The budget tree (scheduler-core's {@link BudgetTree}) from the latest event per account of the
 * compacted {@code budgets} topic. A removed account (its latest event is BudgetRemoved) is left out.
 * The tree decides roll-up (every ancestor of an account gets its usage) and entitlement fractions.
 */
public final class Budgets {

    private Budgets() {
    }

    public static BudgetTree tree(Iterable<BudgetEvent> latestPerAccount) {
        List<BudgetDefined> defined = new ArrayList<>();
        for (BudgetEvent e : latestPerAccount) {
            if (e != null && e.getPayload() instanceof BudgetDefined d) {
                defined.add(d);
            }
        }
        BudgetTree tree = new BudgetTree();
        // Parents first where possible (an unknown parent is created as a root with share 1 and fixed
        // when its own definition comes); a definition that would make a cycle is skipped.
        defined.sort((a, b) -> Integer.compare(depth(a.getPath()), depth(b.getPath())));
        for (BudgetDefined d : defined) {
            try {
                Instant created = d.getCreatedAt() != null ? d.getCreatedAt() : d.getEffectiveAt();
                tree.define(d.getPath(), d.getParent(), d.getShare(),
                        created != null ? created.toEpochMilli() : Long.MIN_VALUE);
            } catch (IllegalArgumentException cycleOrBadShare) {
                // keep the rest of the tree usable
            }
        }
        return tree;
    }

    private static int depth(String path) {
        int n = 0;
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) == '/') {
                n++;
            }
        }
        return n;
    }

    /** The accounts that get an account's usage: its path from the root, or itself if not in the tree. */
    public static List<String> chain(BudgetTree tree, String account) {
        return tree.exists(account) ? tree.path(account) : List.of(account);
    }

    /**
     * What an account is owed over the window ending at {@code asOf}: its fraction of the cluster now
     * x the registered GPUs now x the part of the window since it was created. The scheduler's
     * definition ({@link WindowUsage}, the same arithmetic in the same order); null when unknown.
     */
    public static Double entitled(BudgetTree tree, String account, Integer capacityGpus, long asOf, long windowMillis) {
        if (capacityGpus == null || capacityGpus <= 0 || !tree.exists(account)) {
            return null;
        }
        return WindowUsage.owedSeconds(tree.createdAtMillis(account), windowMillis, asOf) * capacityGpus
                * tree.fraction(account);
    }

    /** What an account is owed during the hour starting at {@code hourStart}: none of it before it was created. */
    public static Double entitledInHour(BudgetTree tree, String account, Integer capacityGpus, long hourStart) {
        return entitled(tree, account, capacityGpus, hourStart + Hours.HOUR, Hours.HOUR);
    }
}
