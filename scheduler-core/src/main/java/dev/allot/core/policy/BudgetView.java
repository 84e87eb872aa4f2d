package dev.allot.core.policy;

import java.util.List;

/** Read-only view of the budget tree as it stands now. */
public interface BudgetView {
    boolean exists(String account);

    /** Parent account, or null for a root. */
    String parent(String account);

    /** Children sorted by name. */
    List<String> children(String account);

    /** Roots sorted by name. */
    List<String> roots();

    /** The account's share: a weight among its siblings. */
    double share(String account);

    /** share / sum of siblings' shares, multiplied down the path from the root: the fraction of a cluster owed. */
    double fraction(String account);

    /** The path from the root to the account, root first. */
    List<String> path(String account);
}
