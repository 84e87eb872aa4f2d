package dev.allot.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {

    @Test
    void owedIsEntitlementCappedHourByHourAtDemand() {
        // given a team entitled to 10 GPU-h per hour that asks for 4, then 20, then 0
        double[] ent = {10 * 3600, 10 * 3600, 10 * 3600};
        double[] demand = {4 * 3600, 20 * 3600, 0};
        // then it is owed 4, 10, 0
        assertThat(OwedHours.owed(ent, demand)).containsExactly(4 * 3600, 10 * 3600, 0);
        // and if it got 4 then 8 GPU-h: 12 of 14 owed
        OwedHours.Team t = OwedHours.team("a", ent, demand, new double[] {4 * 3600, 8 * 3600, 0});
        assertThat(t.owedGpuHours()).isCloseTo(14, within(1e-9));
        assertThat(t.deliveredGpuHours()).isCloseTo(12, within(1e-9));
        assertThat(t.ratio()).isCloseTo(12.0 / 14, within(1e-12));
    }

    @Test
    void surplusHoursDoNotPushTheRatioAboveOne() {
        OwedHours.Team t = OwedHours.team("a", new double[] {3600}, new double[] {7200}, new double[] {7200});
        assertThat(t.ratio()).isEqualTo(1.0);
    }

    @Test
    void summaryTakesMeanWorstAndCountsTeamsAt95ExcludingTeamsOwedNothing() {
        var a = new OwedHours.Team("a", 10, 10, 10, 10); // 1.0
        var b = new OwedHours.Team("b", 10, 10, 10, 9); // 0.9
        var c = new OwedHours.Team("c", 10, 10, 10, 9.5); // 0.95
        var idle = new OwedHours.Team("idle", 10, 0, 0, 0); // not counted
        OwedHours.Summary s = OwedHours.summarize(List.of(idle, c, b, a));
        assertThat(s.mean()).isCloseTo((1.0 + 0.9 + 0.95) / 3, within(1e-12));
        assertThat(s.min()).isCloseTo(0.9, within(1e-12));
        assertThat(s.worstTeam()).isEqualTo("b");
        assertThat(s.teamsAtLeast95()).isEqualTo(2);
        assertThat(s.teamsOwed()).isEqualTo(3);
    }

    @Test
    void hourlySeriesSpreadsIntervalsOverBuckets() {
        HourlySeries s = HourlySeries.hourly(3 * 3600);
        s.addInterval(1800, 2 * 3600 + 900, 2); // 2 GPUs from 0:30 to 2:15
        assertThat(s.toArray()).containsExactly(1800 * 2, 3600 * 2, 900 * 2);
        s.addInterval(-100, 100, 1); // clipped at 0
        s.addInterval(3 * 3600 - 10, 4 * 3600, 1); // clipped at the end
        assertThat(s.get(0)).isEqualTo(3600 + 100);
        assertThat(s.get(2)).isEqualTo(1800 + 10);
        assertThat(s.total()).isEqualTo(2 * 1.75 * 3600 + 100 + 10);
    }

    @Test
    void nearestRankPercentiles() {
        double[] v = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        assertThat(Percentiles.of(v, 0.5)).isEqualTo(5);
        assertThat(Percentiles.of(v, 0.9)).isEqualTo(9);
        assertThat(Percentiles.of(v, 1.0)).isEqualTo(10);
        assertThat(Percentiles.of(new double[] {42}, 0.9)).isEqualTo(42);
        assertThat(Percentiles.of(new double[0], 0.5)).isNaN();
        assertThatThrownBy(() -> Percentiles.of(v, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jobClasses() {
        assertThat(JobClass.of(4, true)).isEqualTo(JobClass.DEBUG);
        assertThat(JobClass.of(63, false)).isEqualTo(JobClass.SMALL);
        assertThat(JobClass.of(64, false)).isEqualTo(JobClass.LARGE);
    }

    @Test
    void clusterMetricsOnAHandComputedTwoHourCase() {
        // given a 10-GPU cluster over 2 hours, team a owns 60%, team b 40%
        ClusterMetrics m = new ClusterMetrics(7200, 10, Map.of("a", 0.6, "b", 0.4, "c", 0.0));
        // a: a 8-GPU job outstanding for 2 h, held only in the 2nd hour (allocated)
        m.demanded("a", 0, 7200, 8, true);
        m.held("a", 3600, 7200, 8, true);
        // b: a 2-GPU allocated job outstanding for 2 h and held for both, and a 4-GPU unallocated job
        // that waits the whole time: the budget owes nothing for unallocated work
        m.demanded("b", 0, 7200, 2, true);
        m.held("b", 0, 7200, 2, true);
        m.demanded("b", 0, 7200, 4, false);
        // c: only unallocated work (2 GPUs for the 2 hours): held, never owed
        m.demanded("c", 0, 7200, 2, false);
        m.held("c", 0, 7200, 2, false);
        // in the first hour 8 GPUs were idle while a's job waited
        m.idleWhileWaiting(0, 3600, 8);
        m.waited(JobClass.SMALL, 3600);
        m.waited(JobClass.SMALL, 0);
        m.waited(JobClass.DEBUG, 20);
        m.preempted(new ClusterMetrics.Preemption("c", "a", 600, 1200, 2, 2 * 600, false, true));

        ClusterMetrics.Result r = m.result();
        // held = 8 GPU-h + 4 GPU-h + 4 GPU-h = 16 of 20
        assertThat(r.occupancy()).isCloseTo(16.0 / 20, within(1e-12));
        assertThat(r.unallocatedShare()).isCloseTo(4.0 / 16, within(1e-12));
        assertThat(r.fragmentation()).isCloseTo(8.0 / 20, within(1e-12));
        // a owed min(6, 8) per hour = 12, got 8 -> 2/3; b owed min(4, 2) = 2 per hour = 4, got 4 -> 1
        assertThat(r.owed().teams()).extracting(OwedHours.Team::owedGpuHours).containsExactly(12.0, 4.0, 0.0);
        assertThat(r.owed().teams()).extracting(OwedHours.Team::deliveredGpuHours).containsExactly(8.0, 4.0, 0.0);
        assertThat(r.owed().teamsOwed()).isEqualTo(2);
        assertThat(m.unallocated("c")).containsExactly(7200.0, 7200.0);
        assertThat(r.owed().min()).isCloseTo(8.0 / 12, within(1e-12));
        assertThat(r.owed().mean()).isCloseTo((8.0 / 12 + 1) / 2, within(1e-12));
        assertThat(r.owed().teamsAtLeast95()).isEqualTo(1);
        assertThat(r.waitP50Seconds().get(JobClass.SMALL)).isEqualTo(0);
        assertThat(r.waitP90Seconds().get(JobClass.SMALL)).isEqualTo(3600);
        assertThat(r.waitP90Seconds().get(JobClass.DEBUG)).isEqualTo(20);
        assertThat(r.waitP90Seconds().get(JobClass.LARGE)).isEqualTo(0);
        assertThat(r.preemptions()).isEqualTo(1);
        assertThat(r.lostGpuHours()).isCloseTo(1200.0 / 3600, within(1e-12));
    }
}
