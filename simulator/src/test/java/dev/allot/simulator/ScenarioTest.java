package dev.allot.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.scenario.ContractRule;
import dev.allot.simulator.scenario.DebugJobs;
import dev.allot.simulator.scenario.LargeJobs;
import dev.allot.simulator.scenario.Scenario;
import dev.allot.simulator.scenario.ScenarioBuilder;
import dev.allot.simulator.scenario.SimJob;
import dev.allot.simulator.trace.TraceJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioTest {

    private static TraceJob job(String id, String team, long submit, int replicas, int gpr, long duration) {
        return new TraceJob(id, team, submit, gpr, replicas, duration, 3600, true, false);
    }

    @Test
    void clusterIsSizedSoOfferedLoadMatchesLoad() {
        // 1 day; a offers 16 GPUs x 12 h, b 8 GPUs x 24 h (its 48 h are cut at the period end),
        // c is submitted after the period and ignored: 16*12 + 8*24 = 384 GPU-h offered
        List<TraceJob> t = List.of(job("a", "x", 0, 2, 8, 12 * 3600), job("b", "y", 0, 1, 8, 48 * 3600),
                job("c", "y", 86400, 1, 8, 3600));
        Scenario s = new ScenarioBuilder().trace(t).days(1).load(2.0).debugPerTeamPerHour(0).build();
        // capacity = 384 / (2 x 24) = 8 GPUs -> 1 node, but the 2-replica job needs 2 nodes
        assertThat(s.nodes()).isEqualTo(2);
        assertThat(s.offeredLoad()).isCloseTo(1.0, within(1e-9));
        assertThat(s.traceJobs()).isEqualTo(2);
        Scenario half = new ScenarioBuilder().trace(t).days(1).load(0.5).debugPerTeamPerHour(0).build();
        assertThat(half.nodes()).isEqualTo(4); // 384 / (0.5 x 24) = 32 GPUs
        assertThat(half.offeredLoad()).isCloseTo(0.5, within(1e-9));
        Scenario fixed = new ScenarioBuilder().trace(t).days(1).nodes(3).debugPerTeamPerHour(0).build();
        assertThat(fixed.clusterGpus()).isEqualTo(24);
    }

    @Test
    void debugJobsAreSeededAndFollowTheDocumentedRule() {
        List<String> teams = List.of("a", "b", "c");
        long period = 20 * 86400;
        var one = DebugJobs.generate(teams, period, 2.0, 7);
        var same = DebugJobs.generate(teams, period, 2.0, 7);
        var other = DebugJobs.generate(teams, period, 2.0, 8);
        assertThat(one).isEqualTo(same);
        assertThat(one).isNotEqualTo(other);
        // Poisson, 2 per team-hour: 3 x 480 x 2 = 2880 expected, sd ~54
        assertThat(one.size()).isBetween(2880 - 300, 2880 + 300);
        for (TraceJob j : one) {
            assertThat(j.debug()).isTrue();
            assertThat(j.replicas()).isEqualTo(1);
            assertThat(j.gpusPerReplica()).isIn(1, 2, 4);
            assertThat(j.durationSeconds()).isBetween(300L, 1800L);
            assertThat(j.minRuntimeSeconds()).isBetween(300L, 900L);
            assertThat(j.submitSeconds()).isBetween(0L, period - 1);
        }
        // a team's stream does not depend on the other teams
        var onlyB = DebugJobs.generate(List.of("b"), period, 2.0, 7);
        assertThat(one.stream().filter(j -> j.team().equals("b")).toList()).isEqualTo(onlyB);
    }

    @Test
    void largeJobsAreSeededPoisson64GpuGangsWithoutAContract() {
        List<String> teams = List.of("a", "b", "c");
        long period = 100 * 86400L;
        var one = LargeJobs.generate(teams, period, 4.0, 7);
        assertThat(one).isEqualTo(LargeJobs.generate(teams, period, 4.0, 7));
        assertThat(one).isNotEqualTo(LargeJobs.generate(teams, period, 4.0, 8));
        // Poisson, 4 a day over 100 days: 400 expected, sd 20
        assertThat(one.size()).isBetween(300, 500);
        for (TraceJob j : one) {
            assertThat(j.gpus()).isEqualTo(64);
            assertThat(j.replicas()).isEqualTo(8);
            assertThat(j.durationSeconds()).isBetween(2 * 3600L, 12 * 3600L);
            assertThat(j.minRuntimeSeconds()).isEqualTo(-1); // the contract rule decides
            assertThat(j.resumable()).isNull();
            assertThat(j.debug()).isFalse();
        }
        assertThat(one).extracting(TraceJob::team).contains("a", "b", "c");
        assertThat(LargeJobs.generate(teams, period, 0, 7)).isEmpty();
    }

    @Test
    void contractRuleIsSeededPerJobAndKeepsDeclaredValues() {
        ContractRule rule = new ContractRule("r", 0.2, 0.5, 1, 8);
        List<TraceJob> open = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            open.add(new TraceJob("j" + i, "t", i, 1, 1, 100, -1, null, false));
        }
        int unallocated = 0;
        int resumable = 0;
        int allocated = 0;
        for (TraceJob t : open) {
            SimJob s = rule.apply(t, 3);
            assertThat(rule.apply(t, 3)).isEqualTo(s);
            if (s.minRuntimeSeconds() == 0) {
                unallocated++;
                assertThat(s.resumable()).isTrue();
            } else {
                allocated++;
                assertThat(s.minRuntimeSeconds()).isBetween(3600L, 8 * 3600L);
                assertThat(s.minRuntimeSeconds() % 60).isZero();
                if (s.resumable()) {
                    resumable++;
                }
            }
        }
        assertThat(unallocated / 4000.0).isCloseTo(0.2, within(0.03));
        assertThat(resumable / (double) allocated).isCloseTo(0.5, within(0.04));
        SimJob declared = rule.apply(new TraceJob("d", "t", 0, 1, 1, 100, 120, false, true), 3);
        assertThat(declared.minRuntimeSeconds()).isEqualTo(120);
        assertThat(declared.resumable()).isFalse();
        assertThat(declared.debug()).isTrue();
    }

    @Test
    void checkpointOnNoticeIsDrawnPerResumableJobFromItsOwnSeed() {
        // given 4000 jobs, every other one resumable
        List<TraceJob> t = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            t.add(new TraceJob("j" + i, "t", i, 1, 1, 100, 3600, i % 2 == 0, false));
        }
        ScenarioBuilder builder = new ScenarioBuilder().trace(t).days(1).nodes(1).debugPerTeamPerHour(0).seed(3);
        Scenario none = builder.build();
        Scenario third = builder.checkpointOnNotice(0.3).build();
        Scenario half = builder.checkpointOnNotice(0.5).build();
        Scenario again = builder.checkpointOnNotice(0.5).build();
        Scenario all = builder.checkpointOnNotice(1).build();
        Scenario otherSeed = builder.seed(4).checkpointOnNotice(0.5).build();
        // when each job is asked, then
        int resumable = 0;
        int atHalf = 0;
        int differs = 0;
        for (SimJob j : half.jobs()) {
            assertThat(none.checkpointsOnNotice(j)).as("0 draws none").isFalse();
            assertThat(half.checkpointsOnNotice(j)).as("seeded by (seed, job id)").isEqualTo(again.checkpointsOnNotice(j));
            assertThat(all.checkpointsOnNotice(j)).as("1 takes every resumable job").isEqualTo(j.resumable());
            if (third.checkpointsOnNotice(j)) {
                assertThat(half.checkpointsOnNotice(j)).as("a larger share keeps the jobs of a smaller one").isTrue();
            }
            if (j.resumable()) {
                resumable++;
                atHalf += half.checkpointsOnNotice(j) ? 1 : 0;
                differs += half.checkpointsOnNotice(j) != otherSeed.checkpointsOnNotice(j) ? 1 : 0;
            } else {
                assertThat(all.checkpointsOnNotice(j)).as("a non-resumable job cannot").isFalse();
            }
        }
        assertThat(resumable).isEqualTo(2000);
        assertThat(atHalf / (double) resumable).isCloseTo(0.5, within(0.04));
        assertThat(differs).as("another seed draws other jobs").isPositive();
        assertThat(half.withCheckpointOnNotice(0).checkpointOnNotice()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> builder.checkpointOnNotice(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--checkpoint-on-notice");
    }

    @Test
    void vcNodesGiveSharesAndUnlistedTeamsTheFloor(@TempDir Path dir) throws Exception {
        Path vc = dir.resolve("vc_nodes.csv");
        Files.writeString(vc, "vc,node num\na,8\nb,24\n");
        BudgetFile tree = BudgetFile.fromVcNodes(vc).withTeams(List.of("a", "b", "z"));
        // floor = half the smallest listed share = 4; fractions 8/36, 24/36, 4/36
        Map<String, Double> f = tree.leafFractions();
        assertThat(f).containsOnlyKeys("a", "b", "z");
        assertThat(f.get("a")).isCloseTo(8 / 36.0, within(1e-12));
        assertThat(f.get("b")).isCloseTo(24 / 36.0, within(1e-12));
        assertThat(f.get("z")).isCloseTo(4 / 36.0, within(1e-12));
    }

    @Test
    void budgetsFileMakesATree(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("budgets.csv");
        Files.writeString(file, "account,parent,share\norg,,1\nprogA,org,3\nprogB,org,1\nt1,progA,1\nt2,progA,1\nt3,progB,1\n");
        BudgetFile tree = BudgetFile.fromFile(file);
        assertThat(tree.tree().fraction("t1")).isCloseTo(0.375, within(1e-12));
        assertThat(tree.tree().fraction("t3")).isCloseTo(0.25, within(1e-12));
        assertThat(tree.leafFractions().values().stream().mapToDouble(Double::doubleValue).sum())
                .isCloseTo(1.0, within(1e-12));
    }
}
