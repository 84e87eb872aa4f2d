package dev.allot.core.budget;

import dev.allot.core.policy.BudgetView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The budget tree: accounts of any depth, each with a share that is a weight among its siblings
 * (as Slurm's shares). Fractions follow {@link Shares}: share over the sum of the siblings' shares
 * (siblings summed in name order), multiplied down the path from the root. A leaf's entitlement on
 * a cluster is its fraction times the cluster's capacity; what it is owed over the window is
 * that since its creation, at most a window back ({@code usage.WindowUsage}).
 */
public final class BudgetTree implements BudgetView {

    private static final class Account {
        final String name;
        String parent;
        double share;
        /** When the account was first defined: what it is owed is counted from then (at most a window back). */
        long createdAtMillis;
        final TreeSet<String> children = new TreeSet<>();

        Account(String name, String parent, double share, long createdAtMillis) {
            this.name = name;
            this.parent = parent;
            this.share = share;
            this.createdAtMillis = createdAtMillis;
        }
    }

    private final TreeMap<String, Account> accounts = new TreeMap<>();
    private final TreeSet<String> roots = new TreeSet<>();
    private long version;
    private Map<String, Double> fractions;
    private final HashMap<String, List<String>> paths = new HashMap<>();
    private final HashMap<String, List<String>> childLists = new HashMap<>();
    private List<String> rootList;

    /** Defines or changes an account created at an unknown time (owed the whole window). */
    public void define(String account, String parent, double share) {
        define(account, parent, share, Long.MIN_VALUE);
    }

    /**
     * Defines or changes an account. An unknown parent is created as a root with share 1, created
     * when the account is. An account keeps the earliest creation time it was given.
     */
    public void define(String account, String parent, double share, long createdAtMillis) {
        if (!(share >= 0) || Double.isInfinite(share)) {
            throw new IllegalArgumentException("share must be a finite number >= 0: " + share);
        }
        if (account.equals(parent)) {
            throw new IllegalArgumentException("an account cannot be its own parent: " + account);
        }
        if (parent != null && !accounts.containsKey(parent)) {
            define(parent, null, 1, createdAtMillis);
        }
        if (parent != null && accounts.containsKey(account) && path(parent).contains(account)) {
            throw new IllegalArgumentException("moving " + account + " under " + parent + " would make a cycle");
        }
        Account a = accounts.get(account);
        if (a == null) {
            a = new Account(account, parent, share, createdAtMillis);
            accounts.put(account, a);
        } else {
            a.createdAtMillis = Math.min(a.createdAtMillis, createdAtMillis);
            detach(a);
            a.parent = parent;
            a.share = share;
        }
        if (parent == null) {
            roots.add(account);
        } else {
            accounts.get(parent).children.add(account);
        }
        changed();
    }

    /** Removes an account and its whole subtree. Unknown accounts are ignored. */
    public void remove(String account) {
        Account a = accounts.get(account);
        if (a == null) {
            return;
        }
        detach(a);
        removeSubtree(a);
        changed();
    }

    private void removeSubtree(Account a) {
        for (String c : List.copyOf(a.children)) {
            removeSubtree(accounts.get(c));
        }
        accounts.remove(a.name);
    }

    private void detach(Account a) {
        if (a.parent == null) {
            roots.remove(a.name);
        } else {
            Account p = accounts.get(a.parent);
            if (p != null) {
                p.children.remove(a.name);
            }
        }
    }

    private void changed() {
        version++;
        fractions = null;
        paths.clear();
        childLists.clear();
        rootList = null;
    }

    /** Increases on every change; lets callers cache derived values. */
    public long version() {
        return version;
    }

    /** All accounts, sorted by name. */
    public List<String> accounts() {
        return List.copyOf(accounts.keySet());
    }

    public int size() {
        return accounts.size();
    }

    @Override
    public boolean exists(String account) {
        return !path(account).isEmpty(); // (a hash lookup: the core asks this for every pair of accounts it meets)
    }

    @Override
    public String parent(String account) {
        Account a = accounts.get(account);
        return a == null ? null : a.parent;
    }

    @Override
    public List<String> children(String account) {
        List<String> l = childLists.get(account);
        if (l == null) {
            Account a = accounts.get(account);
            l = a == null ? List.of() : List.copyOf(a.children);
            childLists.put(account, l);
        }
        return l;
    }

    @Override
    public List<String> roots() {
        if (rootList == null) {
            rootList = List.copyOf(roots);
        }
        return rootList;
    }

    @Override
    public double share(String account) {
        Account a = accounts.get(account);
        return a == null ? 0 : a.share;
    }

    /** When the account was first defined ({@code Long.MIN_VALUE} if unknown or not known when). */
    public long createdAtMillis(String account) {
        Account a = accounts.get(account);
        return a == null ? Long.MIN_VALUE : a.createdAtMillis;
    }

    @Override
    public double fraction(String account) {
        Double f = fractionSnapshot().get(account);
        return f == null ? 0 : f;
    }

    /** Fractions of every account ({@link Shares#fractions}), immutable, cached until the next change. */
    public Map<String, Double> fractionSnapshot() {
        if (fractions == null) {
            fractions = Collections.unmodifiableMap(
                    Shares.fractions(roots, name -> accounts.get(name).children, name -> accounts.get(name).share));
        }
        return fractions;
    }

    /** share / sum of the shares of the account and its siblings; 0 for an unknown account. */
    public double fractionOfParent(String account) {
        Account a = accounts.get(account);
        if (a == null) {
            return 0;
        }
        TreeSet<String> siblings = a.parent == null ? roots : accounts.get(a.parent).children;
        return Shares.fractionOfParent(a.share, Shares.siblingSum(siblings, name -> accounts.get(name).share));
    }

    @Override
    public List<String> path(String account) {
        List<String> p = paths.get(account);
        if (p == null) {
            ArrayList<String> l = new ArrayList<>();
            for (String a = account; a != null && accounts.containsKey(a); a = accounts.get(a).parent) {
                l.add(a);
            }
            Collections.reverse(l);
            p = List.copyOf(l);
            paths.put(account, p);
        }
        return p;
    }
}
