package dev.allot.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.schemas.ChargeMode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosVerdictTest {

    @Test
    void givenACleanRun_whenJudged_thenEveryCountIsRightAndTheTargetsAreMet() {
        Story s = new Story().runs(0, 10, "a", 0).runs(10, 20, "b", 0).reject(1, "r")
                .used(0, 10, "a", 10, ChargeMode.ALLOCATED).used(10, 20, "b", 10, ChargeMode.ALLOCATED)
                .accounted(21, 20, 0);

        ChaosReport report = s.judge(30, "a", "b", "r");

        assertThat(report.submitted()).isEqualTo(3);
        assertThat(report.accepted()).isEqualTo(2);
        assertThat(report.rejected()).isEqualTo(1);
        assertThat(report.completed()).isEqualTo(2);
        assertThat(report.lost()).isEmpty();
        assertThat(report.stuck()).isEmpty();
        assertThat(report.doubleBookedSeconds()).isZero();
        assertThat(report.sharedSeconds()).isZero();
        assertThat(report.usageReported()).isEqualTo(20.0);
        assertThat(report.usageMismatches()).isEmpty();
        assertThat(report.targetsMet()).isTrue();
    }

    @Test
    void givenTwoPlacementsOverlappingOnOneGpu_whenJudged_thenTheOverlapIsDoubleBooked() {
        // a holds GPUs 0,1 of n1 from 0 to 10; b is given GPUs 1,2 at 4: GPU 1 is booked twice for 6 s
        Story s = new Story().accept(0, "a", "sleep", "3").placed(0, "a", "n1", 0, 1).completed(10, "a")
                .accept(3, "b", "sleep", "3").placed(4, "b", "n1", 1, 2).completed(12, "b")
                // c on another node's GPU 1 at the same time: not the same GPU
                .accept(3, "c", "sleep", "3").placed(4, "c", "n2", 1).completed(12, "c");

        ChaosReport report = s.judge(30);

        assertThat(report.doubleBookedSeconds()).isCloseTo(6.0, within(1e-9));
        assertThat(report.doubleBooked()).singleElement().satisfies(o -> {
            assertThat(o.nodeId()).isEqualTo("n1");
            assertThat(o.gpu()).isEqualTo(1);
            assertThat(o.jobs()).containsExactly("a", "b");
        });
        assertThat(report.targetsMet()).isFalse();
    }

    @Test
    void givenAGpuReleasedAndGivenAgainAtTheSameInstant_whenJudged_thenNothingIsDoubleBooked() {
        Story s = new Story().accept(0, "a", "sleep", "3").placed(0, "a", "n1", 0).preempted(10, "a", false)
                .failed(10, "a", 143)
                .accept(5, "b", "sleep", "3").placed(10, "b", "n1", 0).completed(20, "b");

        assertThat(s.judge(30).doubleBooked()).isEmpty();
    }

    @Test
    void givenAPlacementStillOpen_whenJudged_thenItHoldsItsGpusUntilTheLogWasRead() {
        // a never released (stuck): b placed on its GPU at 20 overlaps it until the read at 30
        Story s = new Story().accept(0, "a", "sleep", "3").placed(0, "a", "n1", 0)
                .accept(0, "b", "sleep", "3").placed(20, "b", "n1", 0).completed(40, "b");

        ChaosReport report = s.judge(30);

        assertThat(report.doubleBookedSeconds()).isCloseTo(10.0, within(1e-9));
        assertThat(report.stuck()).containsExactly("a");
    }

    @Test
    void givenAPreemptorStartedBeforeItsVictimExited_whenJudged_thenTheGpuWasPhysicallyShared() {
        // the scheduler's books are clean (the victim released at 5, the preemptor placed at 5), but the agent
        // started the preemptor at 5.200 and reported the victim's exit at 5.250: one GPU, two processes, 50 ms
        Story s = new Story().accept(0, "victim", "sleep", "30").placed(0, "victim", "n1", 3)
                .started(0.1, "victim", "n1").preempted(5, "victim", true)
                .accept(4, "p", "sleep", "3").placed(5, "p", "n1", 3).started(5.2, "p", "n1")
                .exited(5.25, "victim", "n1", 143, true).exited(9, "p", "n1", 0, false).completed(9, "p")
                .placed(10, "victim", "n1", 3).started(10.1, "victim", "n1").exited(20, "victim", "n1", 0, false)
                .completed(20, "victim");

        ChaosReport report = s.judge(30);

        assertThat(report.doubleBooked()).isEmpty();
        assertThat(report.sharedSeconds()).isCloseTo(0.05, within(1e-9));
        assertThat(report.shared()).singleElement().satisfies(o -> assertThat(o.jobs()).containsExactly("p", "victim"));
        assertThat(report.targetsMet()).isFalse();
    }

    @Test
    void givenSubmissionsWithoutAVerdict_whenJudged_thenTheyAreLostAndAcknowledgedOnesMissingFromTheLogToo() {
        Story s = new Story().submit(1, "nobody-answered", "sleep", "3").reject(2, "refused").runs(0, 5, "ok", 0);

        ChaosReport report = s.judge(30, "ok", "refused", "vanished");

        assertThat(report.lost()).containsExactlyInAnyOrder("nobody-answered",
                "vanished (acknowledged, not in job-requests)");
        assertThat(report.targetsMet()).isFalse();
    }

    @Test
    void givenAcceptedJobsWithoutAFinalVerdict_whenJudged_thenTheyAreStuck() {
        Story s = new Story().accept(0, "waiting", "sleep", "3")
                .accept(0, "running", "sleep", "3").placed(1, "running", "n1", 0).started(1, "running", "n1")
                .runs(0, 5, "done", 1);

        ChaosReport report = s.judge(30);

        assertThat(report.stuck()).containsExactlyInAnyOrder("waiting", "running");
        assertThat(report.completed()).isEqualTo(1);
    }

    @Test
    void givenVerdicts_whenJudged_thenOnlyThoseThatContradictHowTheProcessEndedAreWrong() {
        Story s = new Story()
                // exited 0 while its agent was down, recorded FAILED exit -1: wrong
                .accept(0, "agent-down", "sleep", "3").placed(0, "agent-down", "n1", 0).started(0, "agent-down", "n1")
                .exited(8, "agent-down", "n1", -1, false).failed(8, "agent-down", -1)
                // meant to fail, failed: right
                .accept(0, "exit3", "sh", "-c", "sleep 2; exit 3").placed(0, "exit3", "n1", 1)
                .started(0, "exit3", "n1").exited(2, "exit3", "n1", 3, false).failed(2, "exit3", 3)
                // meant to fail, recorded COMPLETED: wrong
                .accept(0, "exit3-ok", "sh", "-c", "sleep 2; exit 3").placed(0, "exit3-ok", "n1", 2)
                .completed(2, "exit3-ok")
                // a command the checker cannot read, every replica exited 0, FAILED: wrong
                .accept(0, "custom", "python", "train.py").placed(0, "custom", "n1", 3).started(0, "custom", "n1")
                .exited(4, "custom", "n1", 0, false).failed(4, "custom", null)
                // preempted without requeue (not resumable): FAILED is the contract, not a wrong verdict
                .accept(0, "victim", "sleep", "30").placed(0, "victim", "n1", 4).started(0, "victim", "n1")
                .preempted(5, "victim", false).exited(6, "victim", "n1", 143, true).failed(6, "victim", 143);

        ChaosReport report = s.judge(30);

        assertThat(report.wrongVerdicts()).extracting(w -> w.substring(0, w.indexOf(':')))
                .containsExactlyInAnyOrder("agent-down", "exit3-ok", "custom");
        assertThat(report.failed()).isEqualTo(4);
        assertThat(report.completed()).isEqualTo(1);
    }

    @Test
    void givenUsageSums_whenJudged_thenAccountingMustMatchTheAgentsExactlyPerChargeMode() {
        Story exact = new Story().used(0, 1, "a", 1.5, ChargeMode.ALLOCATED).used(1, 2, "a", 2.25, ChargeMode.ALLOCATED)
                .used(0, 1, "f", 4, ChargeMode.UNALLOCATED)
                .accounted(1, 1.5, 4).accounted(3, 3.75, 4);   // the latest publication counts
        assertThat(exact.judge(10).usageMismatches()).isEmpty();

        Story short1 = new Story().used(0, 1, "a", 1.5, ChargeMode.ALLOCATED).used(1, 2, "a", 2.25, ChargeMode.ALLOCATED)
                .accounted(3, 2.75, 0);
        ChaosReport missing = short1.judge(10);
        assertThat(missing.usageMismatch()).isCloseTo(1.0, within(1e-9));
        assertThat(missing.usageMismatches()).hasSize(1);

        // the same total, charged as free: still a mismatch
        Story swapped = new Story().used(0, 1, "a", 2, ChargeMode.ALLOCATED).accounted(3, 0, 2);
        assertThat(swapped.judge(10).usageMismatch()).isCloseTo(4.0, within(1e-9));

        // usage but no publication at all
        Story none = new Story().used(0, 1, "a", 2, ChargeMode.ALLOCATED);
        assertThat(none.judge(10).usageMismatches()).hasSize(1);
    }

    @Test
    void givenAnOlderHistory_whenJudgedSinceTheRunStarted_thenOnlyTheRunCounts() {
        Story s = new Story().submit(-100, "old-lost", "sleep", "3").deadLetter(-50, "scheduler-service")
                .deadLetter(5, "budget-service").deadLetter(6, "budget-service").runs(0, 5, "new", 0);

        ChaosReport report = s.judge(30);

        assertThat(report.submitted()).isEqualTo(1);
        assertThat(report.lost()).isEmpty();
        assertThat(report.deadLetters()).containsExactly(java.util.Map.entry("budget-service", 2));
    }

    @Test
    void givenThreeJobsOnOneGpuAtOnce_whenMeasured_thenTheTimeCountsOnce() {
        List<GpuTime.Hold> holds = List.of(new GpuTime.Hold("a", "n1", 0, 0, 10_000),
                new GpuTime.Hold("b", "n1", 0, 2_000, 6_000), new GpuTime.Hold("c", "n1", 0, 4_000, 8_000),
                // the same job twice on the GPU (re-placed): not shared with itself
                new GpuTime.Hold("d", "n1", 1, 0, 5_000), new GpuTime.Hold("d", "n1", 1, 3_000, 8_000));

        assertThat(GpuTime.sharedSeconds(holds)).isCloseTo(6.0, within(1e-9));
    }

    @Test
    void givenCommands_whenRead_thenThePlainFormsTellTheirExit() {
        assertThat(ExpectedExit.of(List.of("sleep", "3"))).isZero();
        assertThat(ExpectedExit.of(List.of("sh", "-c", "sleep 2; exit 3"))).isEqualTo(3);
        assertThat(ExpectedExit.of(List.of("sh", "-c", "sleep 2.5"))).isZero();
        assertThat(ExpectedExit.of(List.of("sh", "-c", "sleep 2; rm -rf x"))).isNull();
        assertThat(ExpectedExit.of(List.of("python", "x.py"))).isNull();
    }

    @Test
    void givenTheDriversRecoveryFile_whenParsed_thenSecondsAreFromTheKill() {
        List<Recovery> r = Recovery.parse(List.of("# component killed restarted ready", "",
                "scheduler-service 1000 3000 9500"));
        assertThat(r).singleElement().satisfies(x -> {
            assertThat(x.seconds()).isEqualTo(8.5);
            assertThat(x.startSeconds()).isEqualTo(6.5);
        });
    }
}
