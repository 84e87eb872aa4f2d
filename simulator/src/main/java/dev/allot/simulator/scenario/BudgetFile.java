package dev.allot.simulator.scenario;

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
 * The scenario's budget tree: accounts with a parent and a share among siblings. Teams of the trace
 * are leaves. Built from a budgets file, from {@code vc_nodes.csv} (Philly: nodes each VC owned),
 * or with equal shares.
 *
 * <p>Budgets file: CSV lines {@code account,parent,share} (an optional header line starting with
 * {@code account}; empty parent = a root; '#' comments), parents before children.
 *
 * <p>Teams of the trace that are not in the tree join the first root with the floor share: half
 * the smallest share among that root's children (1 if it has none).
 */
public final class BudgetTree {
    public static final String ROOT = "org";

    public record Entry(String account, String parent, double share) {
    }

    private final List<Entry> entries;
    private final Map<String, Entry> byName = new LinkedHashMap<>();

    public BudgetTree(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        for (Entry e : this.entries) {
            if (e.share() <= 0) {
                throw new IllegalArgumentException("share of " + e.account() + " must be > 0");
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

    public static BudgetTree fromFile(Path file) {
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
            return new BudgetTree(es);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** org > one leaf per VC of {@code vc_nodes.csv} ("vc,node num"), share = node count. */
    public static BudgetTree fromVcNodes(Path csv) {
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
            return new BudgetTree(es);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** org > teams, equal shares. */
    public static BudgetTree equalShares(Collection<String> teams) {
        List<Entry> es = new ArrayList<>();
        es.add(new Entry(ROOT, null, 1));
        for (String t : new TreeSet<>(teams)) {
            es.add(new Entry(t, ROOT, 1));
        }
        return new BudgetTree(es);
    }

    /** This tree plus every missing team under the first root with the floor share. */
    public BudgetTree withTeams(Collection<String> teams) {
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
        return new BudgetTree(es);
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

    /** share / sum of siblings' shares, multiplied down the path (roots divide among roots). */
    public double fraction(String account) {
        Entry e = byName.get(account);
        if (e == null) {
            return 0;
        }
        double siblings = 0;
        for (Entry s : entries) {
            if (java.util.Objects.equals(s.parent(), e.parent())) {
                siblings += s.share();
            }
        }
        double own = e.share() / siblings;
        return e.parent() == null ? own : own * fraction(e.parent());
    }

    /** Fractions of the leaves, sorted by name. */
    public Map<String, Double> leafFractions() {
        Map<String, Double> m = new TreeMap<>();
        for (Entry e : entries) {
            if (children(e.account()).isEmpty()) {
                m.put(e.account(), fraction(e.account()));
            }
        }
        return m;
    }
}
