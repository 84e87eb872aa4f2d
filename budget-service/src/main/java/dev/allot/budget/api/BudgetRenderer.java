package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.hours.HourlyLedger;
import dev.allot.budget.hours.OwedLedger;
import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.BudgetPath;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.UsageBook.Usage;
import dev.allot.core.budget.Shares;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The budget tree as nested JSON: per account its share, fraction of parent and of the cluster,
 * entitlement in GPUs per cluster and the rolling usage (GPU-hours) and ratio per cluster.
 */
final class BudgetRenderer {

    private final BudgetTree tree;
    private final Map<String, Integer> capacity;
    private final LogView view;

    BudgetRenderer(LogView view) {
        this.view = view;
        this.tree = view.tree();
        this.capacity = view.capacity().gpusPerCluster();
    }

    Map<String, Object> wholeTree() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("clusters", capacity);
        List<Map<String, Object>> roots = new ArrayList<>();
        tree.roots().forEach(root -> roots.add(account(root)));
        body.put("accounts", roots);
        body.put("orphans", tree.orphans());
        return body;
    }

    /**
     * Owed vs delivered GPU-hours over the 7-day window (whole hours up to the one in progress), per
     * cluster with capacity or booked hours: the owed-hours ledger of {@link OwedLedger}.
     */
    private Map<String, Object> owed(String path) {
        TreeSet<String> clusters = new TreeSet<>(capacity.keySet());
        clusters.addAll(view.hours().clusters());
        long last = HourlyLedger.hourOf(System.currentTimeMillis());
        long first = last - (UsageResource.MAX_DAYS * 24L - 1) * HourlyLedger.HOUR;
        Map<String, Object> owed = new LinkedHashMap<>();
        for (String cluster : clusters) {
            owed.put(cluster, OwedLedger.render(cluster, path,
                    view.hours().series(cluster, path, first, last + HourlyLedger.HOUR),
                    UsageResource.entitledPerHour(view, path, cluster), UsageResource.createdAt(view.tree(), path), false));
        }
        return owed;
    }

    BudgetTree tree() {
        return tree;
    }

    Map<String, Object> account(String path) {
        Account account = tree.account(path).orElseThrow();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("path", path);
        body.put("name", BudgetPath.nameOf(path));
        body.put("parent", account.parent());
        body.put("share", account.share());
        body.put("fractionOfParent", tree.fractionOfParent(path));
        double fraction = tree.fractionOfCluster(path);
        body.put("fractionOfCluster", fraction);
        body.put("effectiveAt", account.effectiveAt() == null ? null : account.effectiveAt().toString());
        body.put("createdAt", account.createdAt() == null ? null : account.createdAt().toString());
        body.put("definedBy", account.definedBy());
        body.put("owners", account.owners());
        body.put("members", account.members());

        Map<String, Usage> usage = view.usage().byCluster(path);
        Map<String, Object> entitlement = new LinkedHashMap<>();
        capacity.forEach((cluster, gpus) -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("capacityGpus", gpus);
            e.put("gpus", Shares.entitledGpus(fraction, gpus));
            entitlement.put(cluster, e);
        });
        body.put("entitlement", entitlement);

        Map<String, Object> usageView = new LinkedHashMap<>();
        for (String cluster : new TreeSet<>(usage.keySet())) {
            Usage u = usage.get(cluster);
            double hours = Duration.between(u.windowStart(), u.windowEnd()).toMillis() / 3_600_000.0;
            Double entitledGpuSeconds = u.entitledGpuSeconds() != null ? u.entitledGpuSeconds()
                    // the accounting-service did not say: today's entitlement over the window since creation
                    : capacity.containsKey(cluster) ? dev.allot.core.usage.WindowUsage.owedSeconds(
                            UsageResource.createdAt(view.tree(), path), Math.round(hours * 3_600_000),
                            u.windowEnd().toEpochMilli()) * capacity.get(cluster) * fraction
                    : null;
            Double ratio = u.ratio() != null ? u.ratio()
                    : entitledGpuSeconds != null && entitledGpuSeconds > 0 ? u.chargedGpuSeconds() / entitledGpuSeconds
                    : null;
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("windowStart", u.windowStart().toString());
            line.put("windowEnd", u.windowEnd().toString());
            line.put("chargedGpuHours", u.chargedGpuSeconds() / 3600);
            line.put("unallocatedGpuHours", u.unallocatedGpuSeconds() / 3600);
            line.put("entitledGpuHours", entitledGpuSeconds == null ? null : entitledGpuSeconds / 3600);
            line.put("ratio", ratio);
            usageView.put(cluster, line);
        }
        body.put("usage", usageView);
        body.put("owed", owed(path));

        List<Map<String, Object>> children = new ArrayList<>();
        tree.children(path).forEach(child -> children.add(account(child)));
        body.put("children", children);
        return body;
    }
}
