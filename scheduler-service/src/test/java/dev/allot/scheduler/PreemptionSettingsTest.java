package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.policy.BudgetPolicy;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code allot.scheduler.preemption.*} reaches the core: the share rule, on by default, can be turned off. */
class PreemptionSettingsTest {
    private static final String CLUSTER = "c1";
    private static final long MIN = 60_000;

    private final List<Output> out = new ArrayList<>();
    private long t = 1_000_000;

    private static Settings settings(Settings.Preemption preemption) {
        // the core charges its running jobs (no accounting-service here); nodes are not judged lost over the hour
        return new Settings("unused:9092", "http://unused", CLUSTER, Duration.ofSeconds(1), Duration.ofDays(1),
                Duration.ofSeconds(60), Duration.ofSeconds(1), 500, 30, "running-jobs", Settings.Estimates.DEFAULTS,
                Settings.Standby.DEFAULTS, preemption);
    }

    private Input.Submit job(String id, String budget) {
        return new Input.Submit(++t, id, budget, "me", CLUSTER, 1, 8, 60, true, 0, List.of("sleep", "1"), Map.of(),
                null, t);
    }

    /**
     * lab/a and lab/b share 16 GPUs equally. a has run one node for an hour, b the other for half an hour:
     * each runs its share (8 GPUs), and b's ratio (0.5) is a's (1.0) less more than the margin. Then b
     * asks for a second node.
     */
    private List<String> whenTheTeamAtItsShareAsksForMore(Projection projection) {
        projection.apply(new Input.DefineBudget(t, "lab", null, 1), out);
        projection.apply(new Input.DefineBudget(t, "lab/a", "lab", 1), out);
        projection.apply(new Input.DefineBudget(t, "lab/b", "lab", 1), out);
        projection.apply(new Input.RegisterNode(t, "n1", 8, 1), out);
        projection.apply(new Input.RegisterNode(t, "n2", 8, 1), out);
        projection.apply(job("a-run", "lab/a"), out);
        projection.pass(++t, out);
        t += 30 * MIN;
        projection.apply(job("b-run", "lab/b"), out);
        projection.pass(++t, out);
        t += 30 * MIN;
        projection.apply(job("b-more", "lab/b"), out);
        out.clear();
        projection.pass(++t, out);
        return ProjectionTest.payloads(out, StopJob.class).stream().filter(s -> s.getReason() == StopReason.PREEMPTED)
                .map(StopJob::getJobId).toList();
    }

    @Test
    void givenTheDefaults_whenATeamAtItsShareAsksForMore_thenItWaitsForGpusThatFreeUp() {
        Settings s = settings(Settings.Preemption.DEFAULTS);
        assertThat(s.preemption().protectedFraction()).isEqualTo(1);
        Projection projection = new Projection(s);

        assertThat(whenTheTeamAtItsShareAsksForMore(projection)).isEmpty();
        assertThat(projection.stateOf("b-more")).isEqualTo(JobState.WAITING);
    }

    @Test
    void givenTheShareRuleOff_whenATeamAtItsShareAsksForMore_thenItDisplacesTheTeamAboveItsRatio() {
        Projection projection = new Projection(settings(new Settings.Preemption(0.1, 0, true, true)));

        assertThat(whenTheTeamAtItsShareAsksForMore(projection)).containsExactly("a-run");
        assertThat(projection.stateOf("b-more")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void givenEachKey_whenRead_thenTheCoreRunsIt() {
        Settings.Preemption p = Settings.Preemption.from(Map.of("allot.scheduler.preemption.margin", "0.25",
                "allot.scheduler.preemption.protected-fraction", "0",
                "allot.scheduler.preemption.lane-keeps-allocated", "false",
                "allot.scheduler.preemption.held-reservations", "false")::get);

        Projection projection = new Projection(settings(p));

        assertThat(projection.core().config().preemptionMargin()).isEqualTo(0.25);
        assertThat(projection.core().config().goodput().laneDisplacesAllocated()).isTrue();
        assertThat(projection.core().config().goodput().heldReservations()).isFalse();
        assertThat(((BudgetPolicy) projection.core().policy()).protectedFraction()).isZero();
        assertThat(Settings.Preemption.from(k -> null)).isEqualTo(Settings.Preemption.DEFAULTS);
    }
}
