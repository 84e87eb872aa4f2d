package dev.allot.core.policy;

/**
 * A policy's {@link SchedulingPolicy#allowsDisplacing} for one pass, asked by the two jobs'
 * accounts, for policies whose answer depends on the accounts alone (as {@link BudgetPolicy}'s):
 * the core asks it for every pair of accounts a victim search meets, thousands of pairs a pass, so
 * it should be cheaper than the answer with jobs. It must agree with {@code allowsDisplacing} on
 * every pair.
 */
public interface AccountPairs {
    boolean allows(String preemptorAccount, String victimAccount);

    /**
     * Every account of the budget tree that {@link #allows} gives the preemptor, as whole subtrees:
     * the accounts at or under one of the names returned, and no other account of the tree
     * (accounts outside the tree are asked with {@code allows}). Lets the core compare what two
     * preemptors may displace as sets. Null if the policy's answer has no such shape.
     */
    default java.util.List<String> allowedSubtrees(String preemptorAccount) {
        return null;
    }
}
