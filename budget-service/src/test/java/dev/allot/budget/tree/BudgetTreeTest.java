package dev.allot.budget.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The tree's arithmetic and rules, in memory (the Kafka-backed proof is in the API tests). */
class BudgetTreeTest {

    private static BudgetTree tree(String... pathAndShare) {
        BudgetTree tree = BudgetTree.empty();
        for (int i = 0; i < pathAndShare.length; i += 2) {
            String path = pathAndShare[i];
            tree = tree.define(new Account(path, BudgetPath.parentOf(path), Double.parseDouble(pathAndShare[i + 1]),
                    Instant.EPOCH, "test"));
        }
        return tree;
    }

    @Test
    void givenSiblingShares_whenFractionsAreComputed_thenTheyAreSharesOverSiblingSumsMultipliedDownThePath() {
        BudgetTree tree = tree("lab", "1", "lab/vision", "3", "lab/nlp", "1", "lab/vision/a", "1", "lab/vision/b", "3");

        assertThat(tree.fractionOfParent("lab/vision")).isCloseTo(0.75, within(1e-9));
        assertThat(tree.fractionOfCluster("lab/vision/b")).isCloseTo(0.75 * 0.75, within(1e-9));
        assertThat(tree.fractionOfCluster("lab/nlp")).isCloseTo(0.25, within(1e-9));
        assertThat(tree.children("lab/vision")).containsExactly("lab/vision/a", "lab/vision/b");
    }

    @Test
    void givenATree_whenItsFractionsAreComputed_thenTheyAreBitForBitTheSchedulersFractionsOfTheSameTree() {
        String[] lines = {"lab", "1", "lab/vision", "0.7", "lab/nlp", "0.1", "lab/speech", "0.2", "ops", "3",
                "lab/vision/a", "0.9", "lab/vision/b", "0.3", "lab/vision/b/run", "5"};
        BudgetTree tree = tree(lines);
        dev.allot.core.budget.BudgetTree core = new dev.allot.core.budget.BudgetTree();
        for (int i = 0; i < lines.length; i += 2) {
            core.define(lines[i], BudgetPath.parentOf(lines[i]), Double.parseDouble(lines[i + 1]));
        }

        for (String path : core.accounts()) {
            assertThat(tree.fractionOfCluster(path)).as(path).isEqualTo(core.fraction(path));
            assertThat(tree.fractionOfParent(path)).as(path).isEqualTo(core.fractionOfParent(path));
        }
    }

    @Test
    void givenARemovedAccount_whenFractionsAreComputed_thenItsSiblingsShareWhatItHad() {
        BudgetTree tree = tree("org", "1", "org/a", "1", "org/b", "1", "org/c", "2");

        tree = tree.remove("org/c");

        assertThat(tree.fractionOfParent("org/a")).isEqualTo(0.5);
        assertThat(tree.fractionOfCluster("org/b")).isEqualTo(0.5);
        assertThat(tree.fractionOfCluster("org/c")).isZero();
    }

    @Test
    void givenAChildReplayedBeforeItsParent_whenTheParentArrives_thenTheChildJoinsTheTree() {
        BudgetTree tree = tree("org/team", "1");
        assertThat(tree.orphans()).containsExactly("org/team");
        assertThat(tree.fractionOfCluster("org/team")).isZero();

        tree = tree.define(new Account("org", null, 2, Instant.EPOCH, "test"));

        assertThat(tree.orphans()).isEmpty();
        assertThat(tree.fractionOfCluster("org/team")).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void givenAnAccountWithChildren_whenRemovalIsChecked_thenItIsAConflictNamingThePath() {
        BudgetTree tree = tree("org", "1", "org/team", "1");

        assertThat(BudgetRules.checkRemove(tree, "org")).get()
                .extracting(Violation::status, Violation::field).containsExactly(409, "path");
        assertThat(BudgetRules.checkRemove(tree, "org/team")).isEmpty();
    }

    @Test
    void givenAnAccount_whenItsParentWouldBeItselfOrADescendant_thenTheParentFieldIsRefused() {
        BudgetTree tree = tree("org", "1", "org/team", "1");

        assertThat(BudgetRules.checkDefine(tree, "org/team", 1.0, true, "org/team", true)).get()
                .extracting(Violation::field).isEqualTo("parent");
        assertThat(BudgetRules.checkDefine(tree, "org", 1.0, true, "org/team", true)).get()
                .extracting(Violation::field).isEqualTo("parent");
        assertThat(BudgetRules.checkDefine(tree, "org/team", 1.0, true, "org", true)).isEmpty();
    }

    @Test
    void givenPaths_whenSyntaxIsChecked_thenOnlyWellFormedPathsPass() {
        assertThat(BudgetPath.isValid("lab/vision/team-a")).isTrue();
        assertThat(BudgetPath.isValid("lab//a")).isFalse();
        assertThat(BudgetPath.isValid("/lab")).isFalse();
        assertThat(BudgetPath.isValid("lab/")).isFalse();
        assertThat(BudgetPath.isValid("lab/../x")).isFalse();
        assertThat(BudgetPath.isValid("lab/a b")).isFalse();
    }
}
