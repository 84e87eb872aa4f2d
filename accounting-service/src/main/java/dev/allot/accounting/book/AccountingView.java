package dev.allot.accounting.book;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.metrics.OwedHours;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Read-side answers over the hourly rows, the budget tree and cluster capacities: rolling usage,
 * hourly history, the owed-hours ledger and the whole tree. Inner accounts sum their descendants
 * under the current tree. Used by the REST resource (rows in RocksDB) and the replay (in memory).
 *
 * <p>Entitlement: fraction (scheduler-core's {@link BudgetTree}) x cluster capacity (GPUs of the
 * latest registration of each node, summed per cluster) x time. The compacted budgets topic keeps
 * only the latest share per account, so past hours are valued under the current tree.
 */
public final class AccountingView {

    private final RowStore rows;
    private final Map<String, ? extends Collection<String>> accountsByCluster;
    private final BudgetTree tree;
    private final Map<String, Integer> capacityByCluster;
    private final long windowMillis;

    public AccountingView(RowStore rows, Map<String, ? extends Collection<String>> accountsByCluster, BudgetTree tree,
                          Map<String, Integer> capacityByCluster, long windowMillis) {
        this.rows = rows;
        this.accountsByCluster = accountsByCluster;
        this.tree = tree;
        this.capacityByCluster = capacityByCluster;
        this.windowMillis = windowMillis;
    }

    /** First hour of the window ending at {@code asOf}: the window holds whole hours up to asOf's hour. */
    public static long windowFirstHour(long asOf, long windowMillis) {
        return Hours.hourOf(asOf) - (windowMillis / Hours.HOUR - 1) * Hours.HOUR;
    }

    private Collection<String> accountsOf(String cluster) {
        Collection<String> accounts = accountsByCluster.get(cluster);
        return accounts == null ? List.of() : accounts;
    }

    /** Accounts of the cluster that have rows and count towards {@code account} (itself or a descendant). */
    List<String> members(String cluster, String account) {
        List<String> members = new ArrayList<>();
        for (String a : accountsOf(cluster)) {
            if (a.equals(account) || Budgets.chain(tree, a).contains(account)) {
                members.add(a);
            }
        }
        return members;
    }

    public Figures.Usage usage(String cluster, String account, long asOf) {
        double[] sum = Row.empty();
        long first = windowFirstHour(asOf, windowMillis);
        for (String m : members(cluster, account)) {
            Row.addTo(sum, UsageBook.sum(rows, cluster, m, first, Hours.hourOf(asOf)));
        }
        return figures(cluster, account, asOf, sum);
    }

    Figures.Usage figures(String cluster, String account, long asOf, double[] sum) {
        Double entitled = Budgets.entitled(tree, account, capacityByCluster.get(cluster), asOf, windowMillis);
        Double ratio = entitled != null && entitled > 0 ? sum[Row.CHARGED] / entitled : null;
        return new Figures.Usage(cluster, account, tree.parent(account), tree.exists(account) ? tree.fraction(account) : null,
                asOf - windowMillis, asOf, sum[Row.CHARGED], sum[Row.UNALLOCATED], entitled, ratio);
    }

    /** Every account of the tree (and any account with usage outside it) with its rolling usage. */
    public List<Figures.Usage> tree(String cluster, long asOf) {
        long first = windowFirstHour(asOf, windowMillis);
        Map<String, double[]> own = new HashMap<>();
        for (String a : accountsOf(cluster)) {
            own.put(a, UsageBook.sum(rows, cluster, a, first, Hours.hourOf(asOf)));
        }
        List<Figures.Usage> result = new ArrayList<>();
        Rollup.roll(tree, own).forEach((account, sum) -> result.add(figures(cluster, account, asOf, sum)));
        return result;
    }

    /** Hours in [from, to) with anything booked, own + descendants. */
    public List<Figures.Hour> history(String cluster, String account, long from, long to) {
        Map<Long, double[]> byHour = hours(cluster, account, from, to);
        List<Figures.Hour> result = new ArrayList<>();
        for (long h : new TreeSet<>(byHour.keySet())) {
            double[] r = byHour.get(h);
            result.add(new Figures.Hour(h, r[Row.CHARGED], r[Row.UNALLOCATED], r[Row.DEMANDED]));
        }
        return result;
    }

    private Map<Long, double[]> hours(String cluster, String account, long from, long to) {
        Map<Long, double[]> byHour = new HashMap<>();
        if (to <= from) {
            return byHour;
        }
        for (String m : members(cluster, account)) {
            rows.range(cluster, m, Hours.hourOf(from), Hours.hourOf(to - 1),
                    (h, r) -> Row.addTo(byHour.computeIfAbsent(h, x -> Row.empty()), r));
        }
        return byHour;
    }

    /**
     * The owed-hours ledger over the whole hours covering [from, to): per hour entitled (fraction x
     * capacity x the seconds of the hour since the account was created), demanded, owed = min(entitled, demanded) and delivered = charged GPU-seconds;
     * the definitions are scheduler-core's {@link OwedHours}, shared with the simulator.
     */
    public Figures.Ledger ledger(String cluster, String account, long from, long to) {
        long firstHour = Hours.hourOf(from);
        int n = (int) Math.max(0, (Hours.hourOf(to - 1) - firstHour) / Hours.HOUR + 1);
        Map<Long, double[]> byHour = hours(cluster, account, firstHour, firstHour + n * Hours.HOUR);
        Integer capacity = capacityByCluster.get(cluster);
        boolean known = Budgets.entitled(tree, account, capacity, to, windowMillis) != null;
        Double[] entitledInHour = new Double[n];
        double[] entitled = new double[n];
        double[] demanded = new double[n];
        double[] delivered = new double[n];
        for (int i = 0; i < n; i++) {
            double[] r = byHour.get(firstHour + i * Hours.HOUR);
            entitledInHour[i] = Budgets.entitledInHour(tree, account, capacity, firstHour + i * Hours.HOUR);
            entitled[i] = entitledInHour[i] == null ? 0 : entitledInHour[i];
            demanded[i] = r == null ? 0 : r[Row.DEMANDED];
            delivered[i] = r == null ? 0 : r[Row.CHARGED];
        }
        double[] owed = OwedHours.owed(entitled, demanded);
        List<Figures.LedgerHour> hours = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            hours.add(new Figures.LedgerHour(firstHour + i * Hours.HOUR, entitledInHour[i], demanded[i], owed[i],
                    delivered[i]));
        }
        OwedHours.Team team = OwedHours.team(account, entitled, demanded, delivered);
        Double uncapped = team.owedAnything() ? team.deliveredGpuHours() / team.owedGpuHours() : null;
        return new Figures.Ledger(cluster, account, firstHour, firstHour + n * Hours.HOUR, team.entitledGpuHours(),
                team.demandGpuHours(), team.owedGpuHours(), team.deliveredGpuHours(), team.ratio(), uncapped,
                known, hours);
    }
}
