package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.Hold;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.PolicyContext;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A flat FIFO policy with a per-team GPU limit and no preemption drives the same core. */
class PolicyPluggabilityTest {

    static final class FifoWithLimit implements SchedulingPolicy {
        final int limit;

        FifoWithLimit(int limit) {
            this.limit = limit;
        }

        @Override
        public String name() {
            return "priority";
        }

        @Override
        public AccountRanking rankAccounts(PolicyContext ctx) {
            return AccountRanking.flat();
        }

        @Override
        public Comparator<JobView> withinAccount() {
            return FIFO;
        }

        @Override
        public boolean admits(JobView job, PolicyContext ctx) {
            return ctx.runningGpus(job.account()) + job.gpus() <= limit;
        }

        @Override
        public boolean limitsAdmission() {
            return limit < Integer.MAX_VALUE; // (admits says no past the limit)
        }

        @Override
        public boolean mayPreempt(JobView preemptor, PolicyContext ctx) {
            return false;
        }

        @Override
        public boolean reservesForBlockedJobs() {
            return false;
        }

        @Override
        public PreemptionVerdict mayDisplace(JobView preemptor, JobView victim, PolicyContext ctx) {
            return PreemptionVerdict.no("no preemption");
        }
    }

    @Test
    void fifoAcrossTeamsAdmissionLimitAndNoPreemption() {
        // given a flat FIFO policy with a 6-GPU limit per team on one 8-GPU node
        Scheduler s = new Scheduler(SchedulerConfig.defaults(), new FifoWithLimit(6));
        Fixture f = new Fixture(s).teams("a", "b").nodes("c1", 1, 8);
        // when jobs of two teams arrive interleaved in time
        f.submit(JobRequest.of("a1", "a", "c1", 1, 4, HOUR, true, f.now));
        f.submit(JobRequest.of("b1", "b", "c1", 1, 2, 0, true, f.now + 1));
        f.submit(JobRequest.of("a2", "a", "c1", 1, 2, HOUR, true, f.now + 2));
        f.submit(JobRequest.of("a3", "a", "c1", 1, 1, HOUR, true, f.now + 3));
        f.submit(JobRequest.of("b2", "b", "c1", 1, 4, HOUR, true, f.now + 4));
        f.advance(10);
        List<Decision> d = f.schedule();
        // then FIFO across teams: a1, b1, a2 run; a3 is over team a's limit; b2 does not fit and
        // preempts nobody (not even the unallocated b1)
        assertThat(Fixture.only(d, Decision.Place.class)).extracting(Decision.Place::jobId)
                .containsExactly("a1", "b1", "a2");
        assertThat(Fixture.only(d, Decision.Preempt.class)).isEmpty();
        assertThat(f.s.waiting("c1")).extracting(JobView::jobId).containsExactly("a3", "b2");
        assertThat(f.s.explainWaiting("a3").orElseThrow().hold()).isEqualTo(Hold.ADMISSION_LIMIT);
        assertThat(f.s.explainWaiting("b2").orElseThrow().hold()).isEqualTo(Hold.MISSING_RESOURCE);
        assertThat(f.s.reservations("c1")).isEmpty();
    }
}
