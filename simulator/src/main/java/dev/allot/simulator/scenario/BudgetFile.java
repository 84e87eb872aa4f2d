package dev.allot.simulator.scenario;

import dev.allot.core.budget.BudgetTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The scenario's budget file: the lines (account, parent, share) that define the budget tree, in
 * the order the simulation defines them in the core. Teams of the trace are leaves. Read from a
 * budgets file, from {@code vc_nodes.csv} (Philly: nodes each VC owned), or made with equal shares.
 * Fractions are the core's: {@link #tree()} is scheduler-core's {@link BudgetTree} of these lines,
 * the tree the simulated scheduler ranks with.
 *
 * <p>Budgets file: CSV lines {@code account,parent,share} (an optional header line starting with
 * {@code account}; empty parent = a root; '#' comments), parents before children.
 *
 * <p>Teams of the trace that are not in the tree join the first root with the floor share: half
 * the smallest share among that root's children (1 if it has none).
 */
public final class BudgetFile {
    public static final String ROOT = "org";

    public record Entry(String account, String parent, double share) {
    }

    private final List<Entry> entries;
    private final Map<String, Entry> byName = new LinkedHashMap<>();

    public BudgetFile(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        for (Entry e : this.entries) {
            if (!(e.share() > 0) || Double.isInfinite(e.share())) {
                throw new IllegalArgumentException("share of " + e.account() + " must be a finite number > 0");
            }
            if (e.parent() != null && !byName.containsKey(e.parent())) {
                throw new IllegalArgumentException("parent " + e.parent() + " of " + e.account()
                        + " must be defined before it");
            }
            if (byName.put(e.account(), e) != null) {
                throw new IllegalArgumentException("account defined twice: " + e.account());
            }
        }
    }

    public List<Entry> entries() {
        return entries;
    }

    public boolean contains(String account) {
        return byName.containsKey(account);
    }

    public static BudgetFile fromFile(Path file) {
        try {
            List<Entry> es = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                String l = line.trim();
                if (l.isEmpty() || l.startsWith("#") || l.toLowerCase(java.util.Locale.ROOT).startsWith("account")) {
                    continue;
                }
                String[] f = l.split(",", -1);
                if (f.length < 3) {
                    throw new IllegalArgumentException(file + ": expected account,parent,share: " + line);
                }
                String parent = f[1].trim();
                es.add(new Entry(f[0].trim(), parent.isEmpty() ? null : parent, Double.parseDouble(f[2].trim())));
            }
            return new BudgetFile(es);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** org > one leaf per VC of {@code vc_nodes.csv} ("vc,node num"), share = node count. */
    public static BudgetFile fromVcNodes(Path csv) {
        try {
            List<Entry> es = new ArrayList<>();
            es.add(new Entry(ROOT, null, 1));
            Map<String, Double> shares = new TreeMap<>();
            for (String line : Files.readAllLines(csv)) {
                String l = line.trim();
                if (l.isEmpty() || l.startsWith("vc") || l.startsWith("#")) {
                    continue;
                }
                String[] f = l.split(",");
                shares.put(f[0].trim(), Double.parseDouble(f[1].trim()));
            }
            shares.forEach((k, v) -> es.add(new Entry(k, ROOT, v)));
            return new BudgetFile(es);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** org > teams, equal shares. */
    public static BudgetFile equalShares(Collection<String> teams) {
        List<Entry> es = new ArrayList<>();
        es.add(new Entry(ROOT, null, 1));
        for (String t : new TreeSet<>(teams)) {
            es.add(new Entry(t, ROOT, 1));
        }
        return new BudgetFile(es);
    }

    /** This tree plus every missing team under the first root with the floor share. */
    public BudgetFile withTeams(Collection<String> teams) {
        List<Entry> es = new ArrayList<>(entries);
        String root = entries.isEmpty() ? null : roots().get(0);
        if (root == null) {
            es.add(new Entry(ROOT, null, 1));
            root = ROOT;
        }
        double min = Double.MAX_VALUE;
        for (Entry e : entries) {
            if (root.equals(e.parent())) {
                min = Math.min(min, e.share());
            }
        }
        double floor = min == Double.MAX_VALUE ? 1 : min / 2;
        for (String t : new TreeSet<>(teams)) {
            if (!byName.containsKey(t)) {
                es.add(new Entry(t, root, floor));
            }
        }
        return new BudgetFile(es);
    }

    public List<String> roots() {
        List<String> r = new ArrayList<>();
        for (Entry e : entries) {
            if (e.parent() == null) {
                r.add(e.account());
            }
        }
        return r;
    }

    public List<String> children(String account) {
        List<String> c = new ArrayList<>();
        for (Entry e : entries) {
            if (account.equals(e.parent())) {
                c.add(e.account());
            }
        }
        return c;
    }

    /** scheduler-core's budget tree of these lines (a new one on every call: the core's tree is mutable). */
    public BudgetTree tree() {
        BudgetTree tree = new BudgetTree();
        for (Entry e : entries) {
            tree.define(e.account(), e.parent(), e.share());
        }
        return tree;
    }

    /** Fractions of the cluster of the leaves (the core's rule, {@code core.budget.Shares}), sorted by name. */
    public Map<String, Double> leafFractions() {
        BudgetTree tree = tree();
        Map<String, Double> m = new TreeMap<>();
        for (Entry e : entries) {
            if (tree.children(e.account()).isEmpty()) {
                m.put(e.account(), tree.fraction(e.account()));
            }
        }
        return m;
    }
}
