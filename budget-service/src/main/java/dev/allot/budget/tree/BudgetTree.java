package dev.allot.budget.tree;

import dev.allot.core.budget.Shares;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable snapshot of the budget tree. The projection swaps in a new snapshot per event, so
 * HTTP readers always see one consistent tree without locking.
 *
 * <p>The tree is lenient on purpose: after compaction of the {@code budgets} topic a child's latest
 * record can come before its parent's (the parent was redefined later), so the projection accepts
 * accounts whose parent is not known yet ("orphans"); they join the tree when the parent arrives.
 * Validation happens at the write edge ({@link BudgetRules}), never on replay.
 *
 * <p>Fractions follow the one rule of scheduler-core's {@link Shares} (the scheduler and the
 * accounting-service use it too): fraction of parent = share / sum of the shares of the account and
 * its siblings (roots are siblings of each other, siblings summed in path order); fraction of a
 * cluster = product of fractions down the path. Orphans have no fraction until their parent comes.
 */
public final class BudgetTree {

    private static final BudgetTree EMPTY = new BudgetTree(new TreeMap<>());

    private final TreeMap<String, Account> accounts;
    private final Map<String, List<String>> children;
    private final List<String> roots;
    private final List<String> orphans;
    private volatile Map<String, Double> fractions;

    private BudgetTree(TreeMap<String, Account> accounts) {
        this.accounts = accounts;
        Map<String, List<String>> kids = new HashMap<>();
        List<String> rootList = new ArrayList<>();
        List<String> orphanList = new ArrayList<>();
        for (Account a : accounts.values()) {
            if (a.parent() == null) {
                rootList.add(a.path());
            } else if (accounts.containsKey(a.parent())) {
                kids.computeIfAbsent(a.parent(), k -> new ArrayList<>()).add(a.path());
            } else {
                orphanList.add(a.path());
            }
        }
        this.children = kids;
        this.roots = List.copyOf(rootList);
        this.orphans = List.copyOf(orphanList);
    }

    public static BudgetTree empty() {
        return EMPTY;
    }

    public BudgetTree define(Account account) {
        TreeMap<String, Account> next = new TreeMap<>(accounts);
        next.put(account.path(), account);
        return new BudgetTree(next);
    }

    public BudgetTree remove(String path) {
        if (!accounts.containsKey(path)) {
            return this;
        }
        TreeMap<String, Account> next = new TreeMap<>(accounts);
        next.remove(path);
        return new BudgetTree(next);
    }

    public boolean exists(String path) {
        return accounts.containsKey(path);
    }

    public Optional<Account> account(String path) {
        return Optional.ofNullable(accounts.get(path));
    }

    public List<String> children(String path) {
        return children.getOrDefault(path, List.of());
    }

    public List<String> roots() {
        return roots;
    }

    /** Accounts whose parent is not (yet) in the tree; they have no fraction. */
    public List<String> orphans() {
        return orphans;
    }

    public int size() {
        return accounts.size();
    }

    /** share / sum of siblings' shares (0 for orphans and unknown paths). */
    public double fractionOfParent(String path) {
        Account a = accounts.get(path);
        if (a == null) {
            return 0;
        }
        List<String> siblings = a.parent() == null ? roots : children(a.parent());
        if (!siblings.contains(path)) {
            return 0;
        }
        return Shares.fractionOfParent(a.share(), Shares.siblingSum(siblings, this::share));
    }

    /** Product of the fractions down the path: the part of a cluster the account is entitled to. */
    public double fractionOfCluster(String path) {
        Double f = fractions().get(path);
        return f == null ? 0 : f;
    }

    private Map<String, Double> fractions() {
        Map<String, Double> f = fractions;
        if (f == null) {
            f = Collections.unmodifiableMap(Shares.fractions(roots, this::children, this::share));
            fractions = f;
        }
        return f;
    }

    private double share(String path) {
        return accounts.get(path).share();
    }
}
