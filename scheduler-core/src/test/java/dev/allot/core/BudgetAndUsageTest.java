package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.usage.UsageLedger;
import org.junit.jupiter.api.Test;

class BudgetAndUsageTest {

    @Test
    void fractionIsShareOverSiblingsSharesMultipliedDownThePath() {
        BudgetTree t = new BudgetTree();
        t.define("org", null, 1);
        t.define("p", "org", 7);
        t.define("q", "org", 3);
        t.define("t1", "p", 1);
        t.define("t2", "p", 4);
        assertThat(t.fraction("p")).isCloseTo(0.7, within(1e-12));
        assertThat(t.fraction("t2")).isCloseTo(0.7 * 0.8, within(1e-12));
        assertThat(t.path("t2")).containsExactly("org", "p", "t2");
        t.remove("p");
        assertThat(t.exists("t1")).isFalse();
        assertThat(t.fraction("q")).isEqualTo(1.0);
    }

    @Test
    void cyclesAndNegativeSharesAreRefused() {
        BudgetTree t = new BudgetTree();
        t.define("a", null, 1);
        t.define("b", "a", 1);
        assertThatThrownBy(() -> t.define("a", "b", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.define("c", "a", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void owedIsTodaysFractionOfTodaysGpusSinceCreationAtMostAWindowBack() {
        // given a and b defined at T0 on a 10-GPU cluster, a run of a's for an hour
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 1, 10);
        f.submit("j", "a", 1, 5, HOUR, true);
        f.schedule();
        f.at(T0 + HOUR);
        f.s.advanceTo(f.now);
        // then each is owed half the GPUs for the hour it existed
        assertThat(f.s.usage("c1", "a").entitledGpuSeconds()).isCloseTo(5 * 3600.0, within(1e-6));
        assertThat(f.s.usage("c1", "a").ratio()).isCloseTo(1.0, within(1e-9));
        // when a is re-shared to 3 and a 10-GPU node joins: the whole hour is counted on today's terms
        f.s.defineBudget(f.now, "a", null, 3);
        f.s.registerNode(f.now, new NodeSpec("c1", "c1-extra", 10));
        assertThat(f.s.usage("c1", "a").entitledGpuSeconds()).isCloseTo(0.75 * 20 * 3600, within(1e-6));
        // and a team created later is owed from its creation only
        f.s.defineBudget(f.now, "c", null, 2);
        f.at(f.now + HOUR);
        f.s.advanceTo(f.now);
        assertThat(f.s.usage("c1", "c").entitledGpuSeconds()).isCloseTo(2.0 / 6 * 20 * 3600, within(1e-6));
        // and nobody is owed more than the window (7 days)
        f.at(T0 + 30 * 24 * HOUR);
        f.s.advanceTo(f.now);
        assertThat(f.s.usage("c1", "a").entitledGpuSeconds()).isCloseTo(3.0 / 6 * 20 * 7 * 24 * 3600, within(1e-3));
    }

    @Test
    void anAccountRestoredFromTheLogIsOwedFromItsCreationNotItsLastReShare() {
        Scheduler s = new Scheduler();
        s.registerNode(T0, new NodeSpec("c1", "n1", 8));
        // the log's record: re-shared at T0 + 2 h, created at T0
        s.defineBudget(T0 + 2 * HOUR, "a", null, 1, T0);
        s.advanceTo(T0 + 3 * HOUR);
        assertThat(s.usage("c1", "a").entitledGpuSeconds()).isCloseTo(8 * 3 * 3600.0, within(1e-6));
        // a later record of the same account with a later creation time does not move it
        s.defineBudget(T0 + 3 * HOUR, "a", null, 1, T0 + 3 * HOUR);
        assertThat(s.usage("c1", "a").entitledGpuSeconds()).isCloseTo(8 * 3 * 3600.0, within(1e-6));
    }

    @Test
    void theLedgerWindowSlidesByBuckets() {
        UsageLedger l = new UsageLedger(3 * HOUR, HOUR);
        l.add("c", "a", 0, 2 * HOUR, 7200, true); // 3600 in bucket 0 and 1
        l.add("c", "a", 0, HOUR, 100, false);
        assertThat(l.charged("c", "a", 2 * HOUR + 1)).isEqualTo(7200);
        assertThat(l.charged("c", "a", 3 * HOUR)).isEqualTo(3600); // bucket 0 left the window
        assertThat(l.unallocated("c", "a", 3 * HOUR)).isZero();
        assertThat(l.charged("c", "a", 4 * HOUR)).isZero();
        l.add("c", "a", 0, HOUR, 50, true); // too old for the window the ring now holds? still counted if slot free
        assertThat(l.charged("c", "a", 4 * HOUR)).isZero();
    }

    @Test
    void ratioIsChargedOverEntitledForEveryAccountWithRollUp() {
        // given org > {p > {a, b}, q}, 10 GPUs
        Fixture f = new Fixture().budget("org", null, 1).budget("p", "org", 1).budget("q", "org", 1)
                .budget("a", "p", 1).budget("b", "p", 1).nodes("c1", 1, 10);
        // when a runs 5 GPUs allocated for an hour
        f.submit("j", "a", 1, 5, HOUR, true);
        f.schedule();
        f.at(T0 + HOUR);
        f.s.advanceTo(f.now);
        // then a owed 2.5 GPU-h, used 5: ratio 2; p owed 5, used 5: ratio 1; org owed 10, used 5
        assertThat(f.s.usage("c1", "a").ratio()).isCloseTo(2.0, within(1e-9));
        assertThat(f.s.usage("c1", "p").ratio()).isCloseTo(1.0, within(1e-9));
        assertThat(f.s.usage("c1", "org").ratio()).isCloseTo(0.5, within(1e-9));
        assertThat(f.s.usage("c1", "q").ratio()).isZero();
    }

    @Test
    void usageRecordsFeedTheLedgerInServiceMode() {
        Scheduler s = new Scheduler(SchedulerConfig.defaults().withUsageFeed(UsageFeed.USAGE_RECORDS));
        Fixture f = new Fixture(s).teams("a", "b").nodes("c1", 1, 8);
        f.submit("j", "a", 1, 8, HOUR, true);
        f.schedule();
        f.at(T0 + HOUR);
        s.advanceTo(f.now);
        assertThat(s.usage("c1", "a").chargedGpuSeconds()).isZero(); // running jobs are not charged by the core
        s.recordUsage(new UsageRecord("a", "c1", T0, T0 + HOUR, 8 * 3600, true));
        assertThat(s.usage("c1", "a").chargedGpuSeconds()).isEqualTo(8 * 3600.0);
        assertThat(s.usage("c1", "a").ratio()).isCloseTo(2.0, within(1e-9));
    }
}
