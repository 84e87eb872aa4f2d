package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.AccountRatio;
import dev.allot.core.explain.Hold;
import dev.allot.core.explain.WaitingExplanation;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderingTest {

    /** org > {p1 > {a, b}, p2 > {c}}; p2 has used its share, p1 not: every p1 job before every p2 job. */
    private Fixture tree() {
        Fixture f = new Fixture().budget("org", null, 1).budget("p1", "org", 1).budget("p2", "org", 1)
                .budget("a", "p1", 1).budget("b", "p1", 1).budget("c", "p2", 1).nodes("c1", 1, 8);
        return f;
    }

    @Test
    void siblingsRankByRatioAndEveryJobUnderABetterSiblingComesFirst() {
        // given c (under p2) has used the whole cluster for 2 hours; b used a little
        Fixture f = tree();
        f.submit("c-old", "c", 1, 8, HOUR, true);
        f.schedule();
        f.advance(2 * HOUR);
        f.s.jobFinished(f.now, "c-old");
        f.submit("b-warm", "b", 1, 1, HOUR, true);
        f.schedule();
        f.advance(HOUR);
        f.s.jobFinished(f.now, "b-warm");
        // when the cluster is full and jobs of all three teams wait
        f.submit("blocker", "c", 1, 8, HOUR, true);
        f.schedule();
        f.advance(1000);
        f.submit("c1", "c", 1, 8, HOUR, true).submit("b1", "b", 1, 8, HOUR, true)
                .submit("a1", "a", 1, 8, HOUR, true).submit("a2", "a", 1, 8, HOUR, true);
        f.schedule();
        // then: a (ratio 0) before b (ratio > 0) inside p1, and p1 before p2
        assertThat(f.s.waiting("c1")).extracting(JobView::jobId).containsExactly("a1", "a2", "b1", "c1");
        WaitingExplanation c1 = f.s.explainWaiting("c1").orElseThrow();
        assertThat(c1.position()).isEqualTo(4);
        assertThat(c1.accountsAhead()).extracting(AccountRatio::account).containsExactly("p1");
        assertThat(c1.reason()).contains("accounts ranked ahead: p1 (ratio");
        WaitingExplanation b1 = f.s.explainWaiting("b1").orElseThrow();
        assertThat(b1.accountsAhead()).extracting(AccountRatio::account).containsExactly("a");
        assertThat(b1.accountsAhead().get(0).ratio()).isZero();
    }

    @Test
    void withinATeamPriorityThenSubmitTimeThenJobId() {
        // given a full cluster
        Fixture f = tree();
        f.submit("blocker", "a", 1, 8, HOUR, true);
        f.schedule();
        // when
        f.submit(JobRequest.of("z-late", "a", "c1", 1, 1, HOUR, true, f.now + 5));
        f.submit(JobRequest.of("y-early", "a", "c1", 1, 1, HOUR, true, f.now + 1));
        f.submit(JobRequest.of("x-early", "a", "c1", 1, 1, HOUR, true, f.now + 1));
        f.submit(JobRequest.of("w-prio", "a", "c1", 1, 1, HOUR, true, f.now + 9).withPriority(5));
        f.advance(10);
        f.schedule();
        // then
        assertThat(f.s.waiting("c1")).extracting(JobView::jobId).containsExactly("w-prio", "x-early", "y-early",
                "z-late");
        assertThat(f.s.explainWaiting("w-prio").orElseThrow().hold()).isEqualTo(Hold.WAITING_FOR_RESERVATION);
        assertThat(f.s.explainWaiting("x-early").orElseThrow().hold()).isEqualTo(Hold.MISSING_RESOURCE);
    }

    @Test
    void priorityNeverCrossesTeams() {
        Fixture f = tree();
        f.submit("blocker", "b", 1, 8, 4 * HOUR, true);
        f.schedule();
        f.advance(HOUR);
        f.submit(JobRequest.of("b-high", "b", "c1", 1, 1, HOUR, true, f.now).withPriority(100));
        f.submit(JobRequest.of("a-low", "a", "c1", 1, 1, HOUR, true, f.now).withPriority(-100));
        f.schedule();
        List<String> order = f.s.waiting("c1").stream().map(JobView::jobId).toList();
        assertThat(order).containsExactly("a-low", "b-high");
    }

    @Test
    void jobsOfAccountsWithoutABudgetRankLast() {
        Fixture f = tree();
        f.submit("blocker", "a", 1, 8, HOUR, true);
        f.schedule();
        f.submit("ghost", "nobody", 1, 1, HOUR, true).submit("c1", "c", 1, 1, HOUR, true);
        f.schedule();
        assertThat(f.s.waiting("c1")).extracting(JobView::jobId).containsExactly("c1", "ghost");
        assertThat(f.s.explainWaiting("ghost").orElseThrow().reason()).contains("has no budget");
    }
}
