package dev.allot.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.BudgetPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** BudgetPolicy's share rule (preemption rule 4b): take running work only where it corrects an injustice now. */
class ShareRuleTest {
    private static final long MIN = 60_000L;

    /** a runs two 8-GPU jobs (twice its share of 8), b one placed later (its share), c nothing. */
    private static Fixture world(double protectedFraction) {
        Fixture f = new Fixture(new Scheduler(SchedulerConfig.defaults().withMaxReservationsPerCluster(0),
                new BudgetPolicy(0.1, 0, protectedFraction))).teams("a", "b", "c").nodes("c1", 3, 8);
        f.submit("a1", "a", 1, 8, MIN, true).submit("a2", "a", 1, 8, MIN, true);
        f.schedule();
        f.advance(30 * MIN);
        f.submit("b1", "b", 1, 8, MIN, true);
        f.schedule();
        f.advance(60 * MIN);
        return f;
    }

    @Test
    void aTeamUnderItsShareTakesFromTheSideAboveItsShareNotFromOneAtIt() {
        Fixture f = world(1);
        f.submit("c1", "c", 1, 8, MIN, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        // b's job loses least (placed later), but b runs exactly its share: a's job goes
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactly("a1");
        assertThat(p.get(0).reason()).contains("protected up to");
        assertThat(f.state("c1")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aTeamAtItsShareWaitsInsteadOfTakingRunningWork() {
        Fixture f = world(1);
        f.submit("c1", "c", 1, 8, MIN, true);
        f.schedule();
        f.advance(MIN);
        f.submit("c2", "c", 1, 8, MIN, true);
        // c runs its share now; a still runs 8 GPUs, b 8: nobody above its share, and c at it
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        assertThat(f.state("c2")).isEqualTo(JobState.WAITING);
    }

    @Test
    void withoutTheRuleTheCheapestVictimGoesWhateverItsSideRuns() {
        Fixture f = world(0);
        f.submit("c1", "c", 1, 8, MIN, true);
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).extracting(Decision.Preempt::jobId)
                .containsExactly("b1");
    }
}
