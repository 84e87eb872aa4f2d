package dev.allot.accounting.book;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.budget.BudgetTree;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The owed-hours ledger and roll-up over hourly rows (no Kafka). */
class AccountingViewTest {

    static final long H = Hours.HOUR;
    static final long T0 = 1_000 * H;

    final MemoryRowStore rows = new MemoryRowStore();
    final UsageBook book = new UsageBook(rows);
    final BudgetTree tree = new BudgetTree();

    AccountingViewTest() {
        tree.define("org", null, 1);
        tree.define("org/a", "org", 1);
        tree.define("org/b", "org", 1);
    }

    void usage(String account, long start, long end, double gs) {
        book.apply(new Fact(Fact.Kind.USAGE, "c1", account, start, end, gs, true, "j", "n", 8, "usage", 0, 0),
                UsageBook.Added.NONE);
    }

    void demand(String account, long start, long end, double gpus) {
        book.apply(new Fact(Fact.Kind.DEMAND, "c1", account, start, end, gpus, false, null, null, 0, "account-demand",
                0, 0), UsageBook.Added.NONE);
    }

    AccountingView view() {
        return new AccountingView(rows, rows.accountsByCluster(), tree, Map.of("c1", 10), 7 * 24 * H);
    }

    @Test
    void givenDemandBelowAndAboveEntitlement_whenTheLedgerIsRead_thenOwedIsEntitlementCappedHourByHour() {
        // org/a: fraction 0.5 of 10 GPUs -> entitled 18,000 GPU-s per hour
        demand("org/a", T0, T0 + H, 8);          // 28,800 demanded -> owed 18,000
        demand("org/a", T0 + H, T0 + 2 * H, 2);  // 7,200 demanded  -> owed 7,200
        usage("org/a", T0, T0 + H, 4 * 3600);    // delivered 14,400
        usage("org/a", T0 + H, T0 + 2 * H, 7200); // delivered 7,200

        Figures.Ledger l = view().ledger("c1", "org/a", T0, T0 + 2 * H);

        assertThat(l.hours()).extracting(Figures.LedgerHour::owedGpuSeconds).containsExactly(18_000.0, 7_200.0);
        assertThat(l.owedGpuHours()).isCloseTo(7.0, within(1e-9));
        assertThat(l.deliveredGpuHours()).isCloseTo(6.0, within(1e-9));
        assertThat(l.deliveredOverOwed()).isCloseTo(6.0 / 7.0, within(1e-9));
        assertThat(l.entitledGpuHours()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void givenTwoTeams_whenTheParentIsRead_thenItSumsItsSubtreeAndUsesItsOwnEntitlement() {
        demand("org/a", T0, T0 + H, 20);
        demand("org/b", T0, T0 + H, 1);
        usage("org/a", T0, T0 + H / 2, 1800);
        usage("org/b", T0 + H / 2, T0 + H, 900);

        Figures.Ledger l = view().ledger("c1", "org", T0, T0 + H);

        assertThat(l.demandedGpuHours()).isCloseTo(21.0, within(1e-9));
        assertThat(l.owedGpuHours()).isCloseTo(10.0, within(1e-9)); // capped at org's 10 GPUs
        assertThat(l.deliveredGpuHours()).isCloseTo(0.75, within(1e-9));
        assertThat(view().usage("c1", "org", T0 + H).chargedGpuSeconds()).isEqualTo(2700.0);
    }

    @Test
    void givenAnIntervalAcrossTwoHours_whenBooked_thenThePartsAddUpToTheEvent() {
        usage("org/a", T0 + H - 1000, T0 + H + 2000, 3000.0 / 7);
        double total = view().history("c1", "org/a", T0, T0 + 2 * H).stream()
                .mapToDouble(Figures.Hour::chargedGpuSeconds).sum();
        assertThat(total).isEqualTo(3000.0 / 7);
    }
}
