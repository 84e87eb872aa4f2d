package dev.allot.accounting.book;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.accounting.Events;
import dev.allot.core.budget.BudgetTree;
import dev.allot.core.budget.Shares;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The accounting-service's budget tree from the compacted topic, and entitlement by the one rule. */
class BudgetsTest {

    private static BudgetEvent removed(String path) {
        return BudgetEvent.newBuilder().setEventId("removed-" + path).setOccurredAt(Instant.EPOCH)
                .setPayload(BudgetRemoved.newBuilder().setPath(path).setEffectiveAt(Instant.EPOCH).build())
                .build();
    }

    @Test
    void givenTheLatestEventPerAccount_whenTheTreeIsBuilt_thenChildrenBeforeParentsJoinAndRemovedAccountsAreLeftOut() {
        List<BudgetEvent> latest = List.of(Events.budget("lab/a", "lab", 1, 0), Events.budget("lab/b", "lab", 3, 0),
                removed("lab/c"), Events.budget("lab", null, 1, 0));

        BudgetTree tree = Budgets.tree(latest);

        assertThat(tree.accounts()).containsExactly("lab", "lab/a", "lab/b");
        assertThat(tree.fraction("lab/b")).isEqualTo(0.75);
        assertThat(Budgets.chain(tree, "lab/b")).containsExactly("lab", "lab/b");
        assertThat(Budgets.chain(tree, "lab/c")).containsExactly("lab/c");
    }

    @Test
    void givenAFractionAndACapacity_whenEntitlementIsAsked_thenItIsFractionTimesGpusOverTheSeconds() {
        BudgetTree tree = Budgets.tree(List.of(Events.budget("lab", null, 1, 0), Events.budget("lab/a", "lab", 1, 0),
                Events.budget("lab/b", "lab", 3, 0)));

        assertThat(Budgets.entitled(tree, "lab/b", 16, 3600)).isEqualTo(Shares.entitledGpus(0.75, 16) * 3600)
                .isEqualTo(12.0 * 3600);
        assertThat(Budgets.entitled(tree, "lab/b", 0, 3600)).isNull();
        assertThat(Budgets.entitled(tree, "lab/b", null, 3600)).isNull();
        assertThat(Budgets.entitled(tree, "unknown", 16, 3600)).isNull();
    }
}
