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
}
