package dev.allot.accounting.book;

import dev.allot.core.budget.BudgetTree;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rolls accounts' own figures up the budget tree: every account gets the sum of its own and all its
 * descendants' figures, under the tree as it is now (an account moved in the tree takes its usage
 * history to its new ancestors). Every account of the tree appears, with zeros if nothing was used.
 */
public final class Rollup {

    private Rollup() {
    }

    public static Map<String, double[]> roll(BudgetTree tree, Map<String, double[]> own) {
        TreeMap<String, double[]> totals = new TreeMap<>();
        for (String account : tree.accounts()) {
            totals.put(account, Row.empty());
        }
        for (Map.Entry<String, double[]> e : own.entrySet()) {
            for (String ancestor : Budgets.chain(tree, e.getKey())) {
                Row.addTo(totals.computeIfAbsent(ancestor, a -> Row.empty()), e.getValue());
            }
        }
        return totals;
    }
}
