package dev.allot.core.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one fraction rule: share over the siblings' sum, multiplied down the path; entitlement = fraction x GPUs. */
class SharesTest {

    /** A tree as a map of account to (parent, share), in the order the lines are given. */
    private static final class Lines {
        final Map<String, String> parent = new LinkedHashMap<>();
        final Map<String, Double> share = new LinkedHashMap<>();

        Lines add(String account, String parentAccount, double accountShare) {
            parent.put(account, parentAccount);
            share.put(account, accountShare);
            return this;
        }

        List<String> childrenOf(String account) {
            return parent.entrySet().stream().filter(e -> java.util.Objects.equals(e.getValue(), account))
                    .map(Map.Entry::getKey).toList();
        }

        Map<String, Double> fractions() {
            return Shares.fractions(childrenOf(null), this::childrenOf, share::get);
        }

        /** The core's tree of these lines, defined in their order. */
        BudgetTree coreTree() {
            BudgetTree tree = new BudgetTree();
            parent.forEach((account, parentAccount) -> tree.define(account, parentAccount, share.get(account)));
            return tree;
        }
    }

    @Test
    void givenSiblingShares_whenFractionsOfTheParentAreTaken_thenEachIsItsShareOverTheSiblingsSum() {
        Lines tree = new Lines().add("org", null, 1).add("a", "org", 1).add("b", "org", 3);

        double sum = Shares.siblingSum(tree.childrenOf("org"), tree.share::get);

        assertThat(sum).isEqualTo(4.0);
        assertThat(Shares.fractionOfParent(1, sum)).isEqualTo(0.25);
        assertThat(Shares.fractionOfParent(3, sum)).isEqualTo(0.75);
        assertThat(tree.fractions()).containsEntry("a", 0.25).containsEntry("b", 0.75).containsEntry("org", 1.0);
    }

    @Test
    void givenADeepPath_whenFractionsOfTheClusterAreComputed_thenEachIsTheProductOfTheFractionsDownThePath() {
        Lines tree = new Lines().add("lab", null, 1).add("other", null, 1)
                .add("vision", "lab", 3).add("nlp", "lab", 1)
                .add("team-a", "vision", 1).add("team-b", "vision", 1)
                .add("run-1", "team-a", 2).add("run-2", "team-a", 6);

        Map<String, Double> f = tree.fractions();

        assertThat(f.get("lab")).isEqualTo(0.5);
        assertThat(f.get("vision")).isEqualTo(0.5 * 0.75);
        assertThat(f.get("team-a")).isEqualTo(0.5 * 0.75 * 0.5);
        assertThat(f.get("run-2")).isEqualTo(0.5 * 0.75 * 0.5 * 0.75);
        assertThat(f.get("run-1") + f.get("run-2")).isEqualTo(f.get("team-a"));
    }

    @Test
    void givenAParentFraction_whenAChildsFractionIsComputed_thenItIsParentTimesShareOverSum() {
        // the order is part of the rule: the core's decisions and the simulator's reports were measured with it
        Lines tree = new Lines().add("p", null, 1).add("q", null, 9).add("x", "p", 3).add("y", "p", 3);

        Map<String, Double> f = tree.fractions();

        assertThat(f.get("p")).isEqualTo(0.1);
        assertThat(f.get("x")).isEqualTo(0.1 * 3 / 6).isNotEqualTo(0.1 * (3.0 / 6));
    }

    @Test
    void givenZeroShares_whenFractionsAreComputed_thenAZeroShareGetsNothingAndAllZeroSiblingsGetNothing() {
        Lines tree = new Lines().add("org", null, 1).add("idle", "org", 0).add("busy", "org", 2)
                .add("idle-team", "idle", 1)
                .add("z1", "busy", 0).add("z2", "busy", 0);

        Map<String, Double> f = tree.fractions();

        assertThat(f.get("idle")).isZero();
        assertThat(f.get("idle-team")).isZero();
        assertThat(f.get("busy")).isEqualTo(1.0);
        assertThat(f.get("z1")).isZero();
        assertThat(f.get("z2")).isZero();
        assertThat(Shares.fractionOfParent(0, 0)).isZero();
    }

    @Test
    void givenAnAccountNotReachableFromTheRoots_whenFractionsAreComputed_thenItHasNone() {
        Lines tree = new Lines().add("org", null, 1).add("orphan", "gone", 1);

        Map<String, Double> f = tree.fractions();

        assertThat(f).containsOnlyKeys("org");
    }

    @Test
    void givenAFraction_whenTheEntitlementIsTaken_thenItIsTheFractionOfTheClustersGpus() {
        assertThat(Shares.entitledGpus(0.375, 64)).isEqualTo(24.0);
        assertThat(Shares.entitledGpus(0, 64)).isZero();
        assertThat(Shares.entitledGpus(0.375, 0)).isZero();
    }

    @Test
    void givenTheCoresTree_whenAnAccountIsRemoved_thenItsSiblingsShareWhatItHad() {
        BudgetTree tree = new Lines().add("org", null, 1).add("a", "org", 1).add("b", "org", 1).add("c", "org", 2)
                .add("c1", "c", 1).coreTree();
        assertThat(tree.fraction("a")).isEqualTo(0.25);

        tree.remove("c");

        assertThat(tree.fraction("a")).isEqualTo(0.5);
        assertThat(tree.fractionOfParent("b")).isEqualTo(0.5);
        assertThat(tree.fraction("c")).isZero();
        assertThat(tree.fraction("c1")).isZero();
        assertThat(tree.fractionSnapshot()).containsOnlyKeys("org", "a", "b");
    }

    @Test
    void givenTheCoresTree_whenFractionsAreAsked_thenTheyAreTheRulesOverItsAccountsInNameOrder() {
        // defined out of name order: the core sums siblings in name order, so the rule gets them sorted
        BudgetTree tree = new Lines().add("r", null, 1).add("m", "r", 0.7).add("c", "r", 0.1).add("x", "r", 0.2)
                .add("m2", "m", 0.3).add("m1", "m", 0.9).coreTree();
        Lines lines = new Lines().add("r", null, 1).add("c", "r", 0.1).add("m", "r", 0.7).add("x", "r", 0.2)
                .add("m1", "m", 0.9).add("m2", "m", 0.3);

        assertThat(tree.fractionSnapshot()).isEqualTo(lines.fractions());
        assertThat(tree.fractionOfParent("m")).isEqualTo(Shares.fractionOfParent(0.7, 0.1 + 0.7 + 0.2));
    }
}
