package dev.allot.core.budget;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The one rule from shares to entitlement, for every tree that has shares (the core's
 * {@link BudgetTree}, budget-service's API tree, the simulator's budget file):
 * <ul>
 *   <li>an account's fraction of its parent = its share / the sum of the shares of it and its
 *       siblings (roots are siblings of each other); 0 when that sum is 0;</li>
 *   <li>its fraction of a cluster = the product of those fractions down its path from the root;</li>
 *   <li>its entitlement = fraction of the cluster x the cluster's capacity.</li>
 * </ul>
 * The sums run over the siblings in the order given, and a fraction of the cluster is computed as
 * (parent's fraction x share) / sum: callers that must stay bit-identical (the core's decisions,
 * the simulator's reports) depend on that order, so it is fixed here.
 */
public final class Shares {

    private Shares() {
    }

    /** Sum of the siblings' shares, in the siblings' order. */
    public static <A> double siblingSum(Iterable<A> siblings, ToDoubleFunction<? super A> share) {
        double sum = 0;
        for (A s : siblings) {
            sum += share.applyAsDouble(s);
        }
        return sum;
    }

    /** share / sum of the siblings' shares (the account's own share included); 0 when the sum is 0. */
    public static double fractionOfParent(double share, double siblingSum) {
        return fractionOfCluster(1.0, share, siblingSum);
    }

    /** The account's part of the cluster from its parent's part: parent x share / siblings' sum. */
    public static double fractionOfCluster(double parentFraction, double share, double siblingSum) {
        return siblingSum > 0 ? parentFraction * share / siblingSum : 0;
    }

    /**
     * Fractions of the cluster of every account reachable from the roots, walking down: the roots
     * divide 1 among themselves, each account divides its fraction among its children. Accounts
     * not reachable from the roots (orphans) get none.
     *
     * @param children an account's children, in the order their shares are summed
     */
    public static <A> Map<A, Double> fractions(Collection<A> roots, Function<? super A, ? extends Collection<A>> children,
                                               ToDoubleFunction<? super A> share) {
        Map<A, Double> into = new HashMap<>();
        fill(into, roots, 1.0, children, share);
        return into;
    }

    private static <A> void fill(Map<A, Double> into, Collection<A> siblings, double parentFraction,
                                 Function<? super A, ? extends Collection<A>> children, ToDoubleFunction<? super A> share) {
        double sum = siblingSum(siblings, share);
        for (A s : siblings) {
            double fraction = fractionOfCluster(parentFraction, share.applyAsDouble(s), sum);
            into.put(s, fraction);
            fill(into, children.apply(s), fraction, children, share);
        }
    }

    /** GPUs an account is entitled to on a cluster: its fraction of the cluster x the cluster's GPUs. */
    public static double entitledGpus(double fractionOfCluster, int capacityGpus) {
        return fractionOfCluster * capacityGpus;
    }
}
