package dev.allot.core.policy;

import java.util.HashMap;
import java.util.List;

/**
 * {@link BudgetPolicy}'s view of the tree for one pass: each account's path as sides, each side's
 * ratio and protected share read once. Its preemption rule compares the two sides where the
 * paths diverge, so an account pair is answered with one path lookup and a few comparisons (the
 * core asks thousands of pairs a pass; the window usage and the counts at the pass's start do not
 * change during it).
 */
final class PassSides implements AccountPairs {

    /** One account of the tree as a side: the same object on every path through it. */
    private static final class Side {
        final String name;
        private boolean read;
        private double ratio;
        /** 0 not asked yet, 1 above its protected share, 2 not. */
        private byte above;
        private Side[] children;
        /** The competitors this side may displace (as a preemptor's side at its level), once asked. */
        private List<String> allowedAgainst;

        Side(String name) {
            this.name = name;
        }
    }

    private static final Side[] NOT_IN_TREE = new Side[0];
    private final BudgetPolicy policy;
    private final PolicyContext ctx;
    private final BudgetView tree;
    private final HashMap<String, Side> sides = new HashMap<>();
    private final HashMap<String, Side[]> paths = new HashMap<>();
    private Side[] roots;
    /** The last preemptor asked: a victim search asks one preemptor against many victims. */
    private String lastPreemptor;
    private Side[] lastPreemptorPath;

    PassSides(BudgetPolicy policy, PolicyContext ctx) {
        this.policy = policy;
        this.ctx = ctx;
        this.tree = ctx.budgets();
    }

    /** The account's path from its root, empty if it is not in the tree. */
    private Side[] path(String account) {
        Side[] p = paths.get(account);
        if (p == null) {
            List<String> names = tree.path(account);
            p = names.isEmpty() ? NOT_IN_TREE : sides(names);
            paths.put(account, p);
        }
        return p;
    }

    private Side[] sides(List<String> names) {
        Side[] out = new Side[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = sides.computeIfAbsent(names.get(i), Side::new);
        }
        return out;
    }

    /** The sides that compete with {@code path[level]}: its siblings and itself. */
    private Side[] competitors(Side[] path, int level) {
        if (level == 0) {
            if (roots == null) {
                roots = sides(tree.roots());
            }
            return roots;
        }
        Side parent = path[level - 1];
        if (parent.children == null) {
            parent.children = sides(tree.children(parent.name));
        }
        return parent.children;
    }

    private double ratio(Side s) {
        if (!s.read) {
            s.ratio = ctx.usage(s.name).ratio();
            s.read = true;
        }
        return s.ratio;
    }

    private boolean aboveProtectedShare(Side s) {
        if (s.above == 0) {
            s.above = policy.aboveProtectedShare(s.name, ctx) ? (byte) 1 : (byte) 2;
        }
        return s.above == 1;
    }

    /**
     * The competitors, at each level of the preemptor's path, whose side the rule lets it displace:
     * a victim's side is where its path leaves the preemptor's, so these subtrees hold exactly the
     * accounts of the tree {@link #allows} accepts.
     */
    @Override
    public List<String> allowedSubtrees(String preemptor) {
        Side[] p = path(preemptor);
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < p.length; i++) {
            if (p[i].allowedAgainst == null) { // the same for every preemptor under this side
                java.util.ArrayList<String> allowed = new java.util.ArrayList<>();
                double pr = ratio(p[i]);
                for (Side vs : competitors(p, i)) {
                    if (vs != p[i] && policy.allowed(pr, ratio(vs)) && aboveProtectedShare(vs)) {
                        allowed.add(vs.name);
                    }
                }
                p[i].allowedAgainst = allowed;
            }
            out.addAll(p[i].allowedAgainst);
        }
        return out;
    }

    /** {@link BudgetPolicy#allowsDisplacing} by the accounts: the same outcomes as its comparison. */
    @Override
    public boolean allows(String preemptor, String victim) {
        if (!preemptor.equals(lastPreemptor)) {
            lastPreemptorPath = path(preemptor);
            lastPreemptor = preemptor;
        }
        Side[] p = lastPreemptorPath;
        if (p.length == 0) {
            return false; // the preemptor is not in the tree
        }
        Side[] v = path(victim);
        if (v.length == 0) {
            return true; // the victim's account has left the tree
        }
        int i = 0;
        while (i < p.length && i < v.length && p[i] == v[i]) {
            i++;
        }
        if (i == p.length || i == v.length) {
            return false; // a shared path: equal rank
        }
        return policy.allowed(ratio(p[i]), ratio(v[i])) && aboveProtectedShare(v[i]);
    }
}
