package dev.allot.core.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.JobRequest;
import dev.allot.core.estimate.RunTimeModel.RunTime;
import dev.allot.core.estimate.StartEstimate.Basis;
import org.junit.jupiter.api.Test;

class LearnedRunTimesTest {
    private static final long MIN = 60_000L;
    private static final long HOUR = 60 * MIN;

    private final LearnedRunTimes model = new LearnedRunTimes(2 * HOUR);

    private static JobRequest job(String team, int replicas, int gpus, long declared) {
        return new JobRequest("x", team, "c1", replicas, gpus, HOUR, true, 0, 0, declared);
    }

    @Test
    void aDeclaredDurationComesFirst() {
        model.observe(job("a", 1, 8, -1), 5 * HOUR);
        model.observe(job("a", 1, 8, -1), 5 * HOUR);
        model.observe(job("a", 1, 8, -1), 5 * HOUR);

        assertThat(model.expectedRun(job("a", 1, 8, 30 * MIN))).isEqualTo(new RunTime(30 * MIN, Basis.DECLARED));
        // what is left of it for a running job, nothing once passed
        assertThat(model.expectedRemaining(job("a", 1, 8, 30 * MIN), 20 * MIN)).isEqualTo(new RunTime(10 * MIN,
                Basis.DECLARED));
        assertThat(model.expectedRemaining(job("a", 1, 8, 30 * MIN), HOUR)).isEqualTo(new RunTime(0, Basis.DECLARED));
    }

    @Test
    void theSameShapeOfTheSameTeamIsLearnedFromThreeRuns() {
        model.observe(job("a", 1, 8, -1), HOUR);
        model.observe(job("a", 1, 8, -1), 2 * HOUR);
        assertThat(model.expectedRun(job("a", 1, 8, -1)).basis()).isEqualTo(Basis.DEFAULT);

        model.observe(job("a", 1, 8, -1), 6 * HOUR);

        assertThat(model.expectedRun(job("a", 1, 8, -1))).isEqualTo(new RunTime(3 * HOUR, Basis.LEARNED)); // the mean
        // another team learns nothing from it
        assertThat(model.expectedRun(job("b", 1, 8, -1))).isEqualTo(new RunTime(2 * HOUR, Basis.DEFAULT));
    }

    @Test
    void anotherShapeFallsBackToTheTeamsRunsOfAnyShape() {
        model.observe(job("a", 1, 8, -1), HOUR);
        model.observe(job("a", 2, 8, -1), 2 * HOUR);
        model.observe(job("a", 1, 1, -1), 3 * HOUR);

        assertThat(model.expectedRun(job("a", 4, 8, -1))).isEqualTo(new RunTime(2 * HOUR, Basis.LEARNED));
    }

    @Test
    void onlyTheNewestRunsCount() {
        for (int i = 0; i < LearnedRunTimes.KEPT; i++) {
            model.observe(job("a", 1, 8, -1), 10 * HOUR);
        }
        for (int i = 0; i < LearnedRunTimes.KEPT; i++) {
            model.observe(job("a", 1, 8, -1), HOUR);
        }

        assertThat(model.expectedRun(job("a", 1, 8, -1)).millis()).isEqualTo(HOUR);
    }

    @Test
    void aRunningJobIsExpectedToRunAsTheLongerRunsDid() {
        model.observe(job("a", 1, 8, -1), HOUR);
        model.observe(job("a", 1, 8, -1), 2 * HOUR);
        model.observe(job("a", 1, 8, -1), 8 * HOUR);
        model.observe(job("a", 1, 8, -1), 10 * HOUR);

        // ran 3 h: the runs longer than that averaged 9 h
        assertThat(model.expectedRemaining(job("a", 1, 8, -1), 3 * HOUR)).isEqualTo(new RunTime(6 * HOUR,
                Basis.LEARNED));
        // ran longer than any run seen: as long again
        assertThat(model.expectedRemaining(job("a", 1, 8, -1), 12 * HOUR)).isEqualTo(new RunTime(12 * HOUR,
                Basis.LEARNED));
        // nothing learned: the default's remainder, or as long again once past it
        assertThat(model.expectedRemaining(job("b", 1, 8, -1), 30 * MIN)).isEqualTo(new RunTime(90 * MIN,
                Basis.DEFAULT));
        assertThat(model.expectedRemaining(job("b", 1, 8, -1), 3 * HOUR)).isEqualTo(new RunTime(3 * HOUR,
                Basis.DEFAULT));
    }

    @Test
    void theMedianIsAvailableForComparison() {
        LearnedRunTimes median = new LearnedRunTimes(HOUR, LearnedRunTimes.Statistic.MEDIAN);
        median.observe(job("a", 1, 8, -1), HOUR);
        median.observe(job("a", 1, 8, -1), 2 * HOUR);
        median.observe(job("a", 1, 8, -1), 9 * HOUR);

        assertThat(median.expectedRun(job("a", 1, 8, -1)).millis()).isEqualTo(2 * HOUR);
    }

    @Test
    void aSnapshotKeepsTheFiguresItWasTakenWith() {
        // given three learned runs (a mean of 2 h) and a snapshot of the model
        model.observe(job("a", 1, 8, -1), HOUR);
        model.observe(job("a", 1, 8, -1), 2 * HOUR);
        model.observe(job("a", 1, 8, -1), 3 * HOUR);
        assertThat(model.expectedRun(job("a", 1, 8, -1)).millis()).isEqualTo(2 * HOUR); // sorted once here
        RunTimeModel snapshot = model.snapshot();

        // when the model learns more, of this team and of another
        model.observe(job("a", 1, 8, -1), 10 * HOUR);
        for (int i = 0; i < 3; i++) {
            model.observe(job("b", 1, 8, -1), 5 * HOUR);
        }

        // then the snapshot still answers with the runs it was taken with, and the model with all of them
        assertThat(snapshot.expectedRun(job("a", 1, 8, -1))).isEqualTo(new RunTime(2 * HOUR, Basis.LEARNED));
        assertThat(snapshot.expectedRemaining(job("a", 1, 8, -1), 90 * MIN))
                .isEqualTo(new RunTime(HOUR, Basis.LEARNED)); // the mean of its runs longer than 1.5 h, minus 1.5 h
        assertThat(snapshot.expectedRun(job("b", 1, 8, -1))).isEqualTo(new RunTime(2 * HOUR, Basis.DEFAULT));
        assertThat(model.expectedRun(job("a", 1, 8, -1))).isEqualTo(new RunTime(4 * HOUR, Basis.LEARNED));
        assertThat(model.expectedRun(job("b", 1, 8, -1))).isEqualTo(new RunTime(5 * HOUR, Basis.LEARNED));
    }

    @Test
    void theDefaultMustBePositive() {
        assertThatThrownBy(() -> new LearnedRunTimes(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
