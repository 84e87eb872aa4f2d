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
    void givenAFractionAndACapacity_whenOwedIsAsked_thenItIsSecondsSinceCreationAtMostTheWindowTimesGpusTimesFraction() {
        long hour = 3_600_000L;
        long window = 7 * 24 * hour;
        // lab/b created at 10 h, re-shared later: its record keeps the creation time
        BudgetEvent reShared = Events.budget("lab/b", "lab", 3, 20 * hour);
        BudgetEvent b = BudgetEvent.newBuilder(reShared).setPayload(dev.allot.schemas.BudgetDefined.newBuilder(
                (dev.allot.schemas.BudgetDefined) reShared.getPayload()).setCreatedAt(Instant.ofEpochMilli(10 * hour))
                .build()).build();
        BudgetTree tree = Budgets.tree(List.of(Events.budget("lab", null, 1, 0), Events.budget("lab/a", "lab", 1, 0), b));

        // two hours after its creation it is owed two hours of 12 of the 16 GPUs
        assertThat(Budgets.entitled(tree, "lab/b", 16, 12 * hour, window)).isEqualTo(2 * 3600.0 * 16 * 0.75)
                .isEqualTo(Shares.entitledGpus(0.75, 16) * 2 * 3600);
        // a month on, the window
        assertThat(Budgets.entitled(tree, "lab/b", 16, 30 * 24 * hour, window)).isEqualTo(7 * 24 * 3600.0 * 16 * 0.75);
        // the hour it was created in and the one before
        assertThat(Budgets.entitledInHour(tree, "lab/b", 16, 10 * hour)).isEqualTo(3600.0 * 16 * 0.75);
        assertThat(Budgets.entitledInHour(tree, "lab/b", 16, 9 * hour)).isZero();
        assertThat(Budgets.entitled(tree, "lab/b", 0, hour, window)).isNull();
        assertThat(Budgets.entitled(tree, "lab/b", null, hour, window)).isNull();
        assertThat(Budgets.entitled(tree, "unknown", 16, hour, window)).isNull();
    }
}
