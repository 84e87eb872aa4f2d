package dev.allot.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GoodputMetricsTest {

    /** Two hours of an 8-GPU cluster, teams a and b entitled to half each. */
    private static ClusterMetrics twoHours() {
        return new ClusterMetrics(7200, 8, Map.of("a", 0.5, "b", 0.5));
    }

    private static ClusterMetrics.Preemption preemption(String victim, String preemptor, double from, double at,
            int gpus, boolean allocated, boolean resumable) {
        return new ClusterMetrics.Preemption(victim, preemptor, from, at, gpus, gpus * (at - from), allocated,
                resumable);
    }

    @Test
    void lostWorkIsSplitByChargeModeByResumableAndByTeamAndThePartsSumToTheTotal() {
        // given a's allocated non-resumable 4-GPU job that ran 0..3600 and lost all of it,
        // and b's unallocated resumable 2-GPU job that lost 1800..3600 (checkpointed at 1800)
        ClusterMetrics m = twoHours();
        m.held("a", 0, 3600, 4, true);
        m.held("b", 0, 3600, 2, false);
        m.held("b", 3600, 7200, 4, true);
        m.preempted(preemption("a", "b", 0, 3600, 4, true, false));
        m.preempted(preemption("b", "a", 1800, 3600, 2, false, true));

        // when
        ClusterMetrics.Result r = m.result();
        ClusterMetrics.Goodput g = r.goodput();

        // then: 4 GPU-h allocated (non-resumable), 1 GPU-h unallocated (resumable)
        assertThat(r.lostGpuHours()).isCloseTo(5, within(1e-12));
        assertThat(g.lostGpuHoursAllocated()).isCloseTo(4, within(1e-12));
        assertThat(g.lostGpuHoursUnallocated()).isCloseTo(1, within(1e-12));
        assertThat(g.lostGpuHoursNonResumable()).isCloseTo(4, within(1e-12));
        assertThat(g.lostGpuHoursResumable()).isCloseTo(1, within(1e-12));
        assertThat(g.lostGpuHours("a")).isCloseTo(4, within(1e-12));
        assertThat(g.lostGpuHours("b")).isCloseTo(1, within(1e-12));
        assertThat(g.lostGpuHours("nobody")).isZero();
        assertThat(g.preemptionsAllocated()).isEqualTo(1);
        assertThat(g.preemptionsUnallocated()).isEqualTo(1);
        // held 4 + 2 + 4 = 10 GPU-h of 16 available; useful = 10 - 5
        assertThat(r.heldGpuHours()).isCloseTo(10, within(1e-9));
        assertThat(g.usefulGpuHours()).isCloseTo(5, within(1e-9));
        assertThat(g.lostShare()).isCloseTo(5.0 / 16, within(1e-12));
        // 2 preemptions in 10 GPU-hours held = 200 per 1,000
        assertThat(g.preemptionsPer1000GpuHours()).isCloseTo(200, within(1e-9));
    }

    @Test
    void usefulOwedHoursTakeAnAllocatedVictimsLostWorkOutOfTheHoursItWasDoneIn() {
        // given a owed 4 GPUs for two hours (entitled 4, asks 4) and holding them the whole time,
        // but its job run 0..7200 is preempted at 7200 having checkpointed at 5400
        ClusterMetrics m = twoHours();
        m.demanded("a", 0, 7200, 4, true);
        m.held("a", 0, 7200, 4, true);
        // and b's unallocated job loses work at 3600, which no budget owed
        m.demanded("b", 0, 3600, 2, true);
        m.held("b", 0, 3600, 2, true);
        m.held("b", 0, 3600, 1, false);
        m.preempted(preemption("b", "a", 0, 3600, 1, false, false));
        m.preempted(preemption("a", "b", 5400, 7200, 4, true, true));

        // when
        ClusterMetrics.Result r = m.result();

        // then a's delivery counts fully, its useful delivery loses 1800 s x 4 GPUs in the second hour
        assertThat(m.deliveredUseful("a")).containsExactly(4 * 3600.0, 4 * 1800.0);
        assertThat(r.owed().min()).isEqualTo(1.0);
        OwedHours.Team a = r.goodput().owedUseful().teams().get(0);
        assertThat(a.team()).isEqualTo("a");
        assertThat(a.deliveredGpuHours()).isCloseTo(6, within(1e-9));
        assertThat(a.ratio()).isCloseTo(6.0 / 8, within(1e-12));
        // b lost only unallocated work: useful owed = owed delivered
        assertThat(m.deliveredUseful("b")).containsExactly(m.delivered("b"));
        assertThat(r.goodput().owedUseful().min()).isCloseTo(0.75, within(1e-12));
        assertThat(r.goodput().owedUseful().mean()).isCloseTo((0.75 + 1) / 2, within(1e-12));
        assertThat(r.goodput().owedUseful().worstTeam()).isEqualTo("a");
    }

    @Test
    void lostWorkBeforeThePeriodIsNotTakenOutOfItsHours() {
        // given a job whose lost work started 600 s before the measured period
        ClusterMetrics m = twoHours();
        m.held("a", 0, 1200, 4, true);
        m.preempted(preemption("a", "b", -600, 1200, 4, true, false));
        // then the loss counts whole, useful delivery only loses the part inside the period
        assertThat(m.result().lostGpuHours()).isCloseTo(2, within(1e-12));
        assertThat(m.deliveredUseful("a")).containsExactly(0.0, 0.0);
    }

    @Test
    void largeHeadOfLineIsANearestRankP90AndAMax() {
        // given ten large jobs that waited 100..1000 s at the head of the line, the even ones allocated
        ClusterMetrics m = twoHours();
        for (int i = 10; i >= 1; i--) {
            m.headOfLine(i * 100, i % 2 == 0);
        }
        // when
        ClusterMetrics.Goodput g = m.result().goodput();
        // then
        assertThat(g.largeHeadOfLineJobs()).isEqualTo(10);
        assertThat(g.largeHeadOfLineP90Seconds()).isEqualTo(900);
        assertThat(g.largeHeadOfLineMaxSeconds()).isEqualTo(1000);
        // and the allocated ones apart: 200, 400, ..., 1000 s, whose nearest-rank p90 is the largest
        assertThat(g.largeHeadOfLineAllocatedJobs()).isEqualTo(5);
        assertThat(g.largeHeadOfLineAllocatedP90Seconds()).isEqualTo(1000);
    }

    @Test
    void noLargeJobAtTheHeadOfTheLineGivesZeros() {
        ClusterMetrics.Goodput g = twoHours().result().goodput();
        assertThat(g.largeHeadOfLineJobs()).isZero();
        assertThat(g.largeHeadOfLineP90Seconds()).isZero();
        assertThat(g.largeHeadOfLineMaxSeconds()).isZero();
    }

    @Test
    void debugWaitsAreSplitByChargeModeAndStillCountedTogether() {
        // given allocated debug jobs waiting 10 and 20 s, unallocated ones 300 and 600 s
        ClusterMetrics m = twoHours();
        m.waited(JobClass.DEBUG, 10, true);
        m.waited(JobClass.DEBUG, 20, true);
        m.waited(JobClass.DEBUG, 300, false);
        m.waited(JobClass.DEBUG, 600, false);
        m.waited(JobClass.SMALL, 5000, true);
        // when
        ClusterMetrics.Result r = m.result();
        // then
        assertThat(r.goodput().debugAllocatedP50Seconds()).isEqualTo(10);
        assertThat(r.goodput().debugAllocatedP90Seconds()).isEqualTo(20);
        assertThat(r.goodput().debugUnallocatedP50Seconds()).isEqualTo(300);
        assertThat(r.goodput().debugUnallocatedP90Seconds()).isEqualTo(600);
        assertThat(r.jobsPerClass().get(JobClass.DEBUG)).isEqualTo(4);
        assertThat(r.waitP90Seconds().get(JobClass.DEBUG)).isEqualTo(600);
    }

    @Test
    void aPreemptionAndItsReverseWithinAnHourAreOneCycle() {
        // given a displaces b at 0 and b displaces a at 3600
        PreemptionCycles c = PreemptionCycles.hourly();
        c.record(0, "a", "b");
        c.record(3600, "b", "a");
        // then one cycle
        assertThat(c.cycles()).isEqualTo(1);
    }

    @Test
    void aReverseAfterMoreThanAnHourIsNoCycle() {
        PreemptionCycles c = PreemptionCycles.hourly();
        c.record(0, "a", "b");
        c.record(3600.5, "b", "a");
        assertThat(c.cycles()).isZero();
    }

    @Test
    void eachEarlierDisplacementPairsWithTheReverseAndSameDirectionOrSameAccountIsNoCycle() {
        // given a displaces b twice, a displaces a, c displaces b, then b displaces a at the same moment
        PreemptionCycles c = PreemptionCycles.hourly();
        c.record(10, "a", "b");
        c.record(20, "a", "b");
        c.record(20, "a", "a");
        c.record(25, "c", "b");
        c.record(30, "a", "b");
        c.record(30, "b", "a");
        // then the three a-over-b displacements each pair with b-over-a
        assertThat(c.cycles()).isEqualTo(3);
    }

    @Test
    void cyclesAreCountedThroughTheMetrics() {
        // given b displaces a and a displaces b 10 minutes later
        ClusterMetrics m = twoHours();
        m.preempted(preemption("a", "b", 0, 100, 1, true, true));
        m.preempted(preemption("b", "a", 100, 700, 1, false, true));
        assertThat(m.result().goodput().cycles()).isEqualTo(1);
    }

    @Test
    void preemptionsOutOfTimeOrderAreRefused() {
        PreemptionCycles c = PreemptionCycles.hourly();
        c.record(100, "a", "b");
        assertThatThrownBy(() -> c.record(50, "b", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of time order");
    }
}
