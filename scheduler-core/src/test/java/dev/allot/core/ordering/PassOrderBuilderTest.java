package dev.allot.core.ordering;

import static dev.allot.core.state.ClusterBuilder.HOUR;
import static dev.allot.core.state.ClusterBuilder.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.JobRequest;
import dev.allot.core.explain.AccountRatio;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.state.ClusterBuilder;
import dev.allot.core.state.Job;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pass order (ordering rules 3-6), built directly from a given ranking. */
class PassOrderBuilderTest {
    private final ClusterBuilder given = new ClusterBuilder();

    /** Ranks as given; accounts not listed rank last (no ratios to quote). */
    private record Ranks(Map<String, Integer> byAccount) implements AccountRanking {
        @Override
        public List<AccountRatio> aheadOf(String account) {
            return List.of();
        }

        @Override
        public int rankOf(String account) {
            Integer rank = byAccount.get(account);
            return rank == null ? Integer.MAX_VALUE : rank;
        }
    }

    private static AccountRanking ranks(Map<String, Integer> ranks) {
        return new Ranks(ranks);
    }

    private static List<String> ids(PassOrder order) {
        return order.jobs().stream().map(Job::jobId).toList();
    }

    @Test
    void givenRankedAccounts_whenOrdering_thenAccountsByRankThenPriorityThenSubmitTimeThenId() {
        // given account b ranked before a, and jobs of each in mixed submit order and priority
        given.waiting("a-early", "a", 1, 1, HOUR, T0);
        given.waiting("b-late", "b", 1, 1, HOUR, T0 + 2000);
        given.waiting("b-early", "b", 1, 1, HOUR, T0 + 1000);
        given.waiting(new JobRequest("b-urgent", "b", "c1", 1, 1, HOUR, true, 5, T0 + 3000, -1));
        given.waiting("b-same-time-x", "b", 1, 1, HOUR, T0 + 1000);
        // when the order is built
        PassOrder order = PassOrderBuilder.build(given.cs, ranks(Map.of("a", 1, "b", 0)),
                SchedulingPolicy.PRIORITY_THEN_SUBMIT, -1);
        // then rule 3 (rank), 4 (priority), 5 (submit time), 6 (job id)
        assertThat(ids(order)).containsExactly("b-urgent", "b-early", "b-same-time-x", "b-late", "a-early");
    }

    @Test
    void givenAccountsSharingARank_whenOrdering_thenTheirJobsInterleaveByTheWithinAccountRule() {
        // given a flat ranking and FIFO within accounts
        given.waiting("a2", "a", 1, 1, HOUR, T0 + 2000);
        given.waiting("b1", "b", 1, 1, HOUR, T0 + 1000);
        given.waiting("a1", "a", 1, 1, HOUR, T0);
        // when the order is built
        PassOrder order = PassOrderBuilder.build(given.cs, AccountRanking.flat(), SchedulingPolicy.FIFO, -1);
        // then one merged group by submit time
        assertThat(ids(order)).containsExactly("a1", "b1", "a2");
    }

    @Test
    void givenAnAccountMissingFromTheRanking_whenOrdering_thenItsJobsComeLast() {
        // given a ranked account and an account without a budget
        given.waiting("orphan", "nobody", 1, 1, HOUR, T0);
        given.waiting("ranked", "a", 1, 1, HOUR, T0 + 5000);
        // when the order is built
        PassOrder order = PassOrderBuilder.build(given.cs, ranks(Map.of("a", 0)),
                SchedulingPolicy.PRIORITY_THEN_SUBMIT, -1);
        // then the job without a budget is last despite its earlier submit time
        assertThat(ids(order)).containsExactly("ranked", "orphan");
    }

    @Test
    void givenAJobThatLeftSinceTheOrderWasBuilt_whenReadingTheOrder_thenItIsSkipped() {
        // given an order of two jobs
        Job gone = given.waiting("gone", "a", 1, 1, HOUR, T0);
        given.waiting("stays", "a", 1, 1, HOUR, T0 + 1000);
        PassOrder order = PassOrderBuilder.build(given.cs, AccountRanking.flat(),
                SchedulingPolicy.PRIORITY_THEN_SUBMIT, -1);
        // when one of them finishes (cancelled) after the order was built
        given.cs.finish(gone, T0 + 2000);
        // then the order no longer lists it, without being rebuilt
        assertThat(ids(order)).containsExactly("stays");
    }

    @Test
    void givenAFlatRankingOverSeveralPasses_whenJobsArrivePlaceAndRequeue_thenEachOrderIsAllWaitingJobsInTheWithinRule() {
        // given a flat ranking whose merged order the queues keep across passes, and one open node
        given.nodes(1, 8);
        Job a1 = given.waiting("a1", "a", 1, 1, HOUR, T0);
        given.waiting("b1", "b", 1, 1, HOUR, T0 + 1000);
        Job a2 = given.waiting("a2", "a", 1, 1, HOUR, T0 + 2000);
        Job c1 = given.waiting("c1", "c", 1, 1, HOUR, T0 + 3000);
        assertThat(ids(flatOrder())).containsExactly("a1", "b1", "a2", "c1");
        // when a1 is placed, b2 arrives between b1 and a2, and c's only job is cancelled
        given.cs.place(a1, List.of(given.node(1)), T0 + 4000, true, false);
        given.waiting("b2", "b", 1, 1, HOUR, T0 + 1500);
        given.cs.finish(c1, T0 + 4000);
        // then the next order has neither the placed nor the cancelled job, and b2 in its place
        assertThat(ids(flatOrder())).containsExactly("b1", "b2", "a2");
        // when a1 is requeued from scratch (it queues from now), and a2 is placed and then requeued
        // keeping its submit time
        given.cs.requeue(a1, T0 + 5000, false);
        given.cs.place(a2, List.of(given.node(1)), T0 + 5000, true, false);
        given.cs.requeue(a2, T0 + 6000, true);
        // then each appears once, a1 last (it queues from its requeue), a2 back in its old place
        assertThat(ids(flatOrder())).containsExactly("b1", "b2", "a2", "a1");
    }

    private PassOrder flatOrder() {
        return PassOrderBuilder.build(given.cs, AccountRanking.flat(), SchedulingPolicy.FIFO, -1);
    }
}
