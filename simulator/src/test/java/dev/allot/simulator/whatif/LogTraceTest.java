package dev.allot.simulator.whatif;

import static dev.allot.simulator.whatif.Records.at;
import static dev.allot.simulator.whatif.Records.cancelled;
import static dev.allot.simulator.whatif.Records.checkpointed;
import static dev.allot.simulator.whatif.Records.completed;
import static dev.allot.simulator.whatif.Records.defined;
import static dev.allot.simulator.whatif.Records.placed;
import static dev.allot.simulator.whatif.Records.preempted;
import static dev.allot.simulator.whatif.Records.registered;
import static dev.allot.simulator.whatif.Records.rejected;
import static dev.allot.simulator.whatif.Records.removed;
import static dev.allot.simulator.whatif.Records.requeued;
import static dev.allot.simulator.whatif.Records.submitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.trace.TraceJob;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The trace built from hand-made records: one window [1000 s, 11000 s) of cluster "c". */
class LogTraceTest {

    static final double FROM = 1000;
    static final double TO = 11000;

    LogTrace log;

    @BeforeEach
    void aClusterAndATree() {
        log = new LogTrace();
        log.accept(registered("n1", "c", 8, 0));
        log.accept(registered("n2", "c", 8, 0));
        log.accept(defined("lab", null, 1, 0));
        log.accept(defined("lab/a", "lab", 1, 0));
        log.accept(defined("lab/b", "lab", 1, 0));
    }

    LogTrace.Trace build() {
        return log.build("c", at(FROM).toEpochMilli(), at(TO).toEpochMilli());
    }

    static Map<String, TraceJob> byId(LogTrace.Trace t) {
        return t.jobs().stream().collect(Collectors.toMap(TraceJob::jobId, Function.identity()));
    }

    @Test
    void givenAResumableJobPreemptedAfterACheckpoint_whenBuilt_thenItsRunsAreOneJobOfTheKeptWorkPlusTheLastRun() {
        // given: placed at 2000, checkpoint at 2600, preempted at 3000 (400 s lost), requeued, placed at 4000, done at 4500
        log.accept(submitted("j1", "lab/a", "c", 1, 4, 600, true, null, 1500));
        log.accept(placed("j1", "lab/a", "c", 2000));
        log.accept(checkpointed("j1", 2600));
        log.accept(preempted("j1", 3000));
        log.accept(requeued("j1", 3000));
        log.accept(placed("j1", "lab/a", "c", 4000));
        log.accept(completed("j1", 4500));

        // when
        LogTrace.Trace t = build();

        // then: one job, 600 s kept + 500 s of the last run, submitted 500 s into the window
        assertThat(t.jobs()).hasSize(1);
        TraceJob j = t.jobs().get(0);
        assertThat(j.durationSeconds()).isEqualTo(1100);
        assertThat(j.submitSeconds()).isEqualTo(500);
        assertThat(j.gpus()).isEqualTo(4);
        assertThat(j.minRuntimeSeconds()).isEqualTo(600);
        assertThat(j.resumable()).isTrue();
        // recorded: both runs held 4 GPUs (1000 s + 500 s), one completion
        assertThat(t.recorded().get("lab/a").deliveredGpuSeconds).isEqualTo(4 * 1500.0);
        assertThat(t.recorded().get("lab/a").completed).isEqualTo(1);
        assertThat(t.notes().ended).isEqualTo(1);
    }

    @Test
    void givenANonResumableJobPreempted_whenBuilt_thenOnlyItsLastRunCounts() {
        log.accept(submitted("j2", "lab/b", "c", 2, 8, 600, false, null, 1000));
        log.accept(placed("j2", "lab/b", "c", 1000));
        log.accept(checkpointed("j2", 1500)); // a non-resumable job keeps nothing, checkpoint or not
        log.accept(preempted("j2", 1800));
        log.accept(placed("j2", "lab/b", "c", 2000));
        log.accept(completed("j2", 3000));

        TraceJob j = build().jobs().get(0);

        assertThat(j.durationSeconds()).isEqualTo(1000);
        assertThat(j.replicas()).isEqualTo(2);
        assertThat(j.gpusPerReplica()).isEqualTo(8);
        assertThat(j.resumable()).isFalse();
    }

    @Test
    void givenJobsRunningAtTheEnd_whenBuilt_thenTheirRunSoFarOrTheirDeclaredDurationIfLonger() {
        log.accept(submitted("short", "lab/a", "c", 1, 1, 60, true, null, 10_000));
        log.accept(placed("short", "lab/a", "c", 10_700)); // 300 s so far, nothing declared
        log.accept(submitted("declared", "lab/a", "c", 1, 1, 60, true, 3600L, 10_000));
        log.accept(placed("declared", "lab/a", "c", 10_700)); // 300 s so far, 3600 declared
        log.accept(submitted("overran", "lab/a", "c", 1, 1, 60, true, 100L, 10_000));
        log.accept(placed("overran", "lab/a", "c", 10_700)); // 300 s so far, 100 declared

        LogTrace.Trace t = build();
        Map<String, TraceJob> jobs = byId(t);

        assertThat(jobs.get("short").durationSeconds()).isEqualTo(300);
        assertThat(jobs.get("declared").durationSeconds()).isEqualTo(3600);
        assertThat(jobs.get("overran").durationSeconds()).isEqualTo(300);
        assertThat(t.notes().runningSoFar).isEqualTo(2);
        assertThat(t.notes().runningDeclared).isEqualTo(1);
        // recorded delivery counts the part inside the window only
        assertThat(t.recorded().get("lab/a").deliveredGpuSeconds).isEqualTo(900.0);
        assertThat(t.recorded().get("lab/a").completed).isZero();
    }

    @Test
    void givenJobsWaitingAtTheEnd_whenBuilt_thenDeclaredDurationElseTheTeamMedianElseTheOverallMedian() {
        // lab/a finished jobs of 100, 300 and 500 s; lab/b none
        double t0 = 2000;
        for (int i = 0; i < 3; i++) {
            String id = "done" + i;
            log.accept(submitted(id, "lab/a", "c", 1, 1, 60, true, null, t0));
            log.accept(placed(id, "lab/a", "c", t0));
            log.accept(completed(id, t0 + 100 + 200 * i));
        }
        log.accept(submitted("wait-declared", "lab/a", "c", 1, 8, 60, true, 1800L, 9000));
        log.accept(submitted("wait-a", "lab/a", "c", 1, 8, 60, true, null, 9000));
        log.accept(submitted("wait-b", "lab/b", "c", 1, 8, 60, true, null, 9000));

        LogTrace.Trace t = build();
        Map<String, TraceJob> jobs = byId(t);

        assertThat(jobs.get("wait-declared").durationSeconds()).isEqualTo(1800);
        assertThat(jobs.get("wait-a").durationSeconds()).isEqualTo(300);
        assertThat(jobs.get("wait-b").durationSeconds()).isEqualTo(300);
        assertThat(t.notes().waitingDeclared).isEqualTo(1);
        assertThat(t.notes().waitingTeamMedian).isEqualTo(1);
        assertThat(t.notes().waitingAllMedian).isEqualTo(1);
    }

    @Test
    void givenAJobWaitingAgainAfterAPreemption_whenBuilt_thenItsDurationIsAtLeastTheWorkItKept() {
        log.accept(submitted("again", "lab/a", "c", 1, 1, 60, true, 100L, 2000));
        log.accept(placed("again", "lab/a", "c", 2000));
        log.accept(checkpointed("again", 2900));
        log.accept(preempted("again", 3000));

        TraceJob j = build().jobs().get(0);

        assertThat(j.durationSeconds()).isEqualTo(901);
    }

    @Test
    void givenAJobPreemptedWithoutRequeue_whenBuilt_thenItEndedThereWithItsRun() {
        log.accept(submitted("gone", "lab/a", "c", 1, 1, 60, true, 5000L, 2000));
        log.accept(placed("gone", "lab/a", "c", 2000));
        log.accept(preempted("gone", 2700, false));

        LogTrace.Trace t = build();

        assertThat(t.jobs().get(0).durationSeconds()).isEqualTo(700);
        assertThat(t.notes().ended).isEqualTo(1);
    }

    @Test
    void givenRejectedCancelledAndEarlierJobs_whenBuilt_thenTheyAreLeftOutAndCounted() {
        log.accept(submitted("rej", "lab/a", "c", 1, 1, 60, true, null, 2000));
        log.accept(rejected("rej", 2000));
        log.accept(submitted("gave-up", "lab/a", "c", 1, 1, 60, true, null, 2000));
        log.accept(cancelled("gave-up", 2500, false));
        log.accept(submitted("stopped", "lab/a", "c", 1, 1, 60, true, null, 2000));
        log.accept(placed("stopped", "lab/a", "c", 2000));
        log.accept(cancelled("stopped", 2400, true));
        log.accept(submitted("old", "lab/a", "c", 1, 1, 60, true, null, 100));
        log.accept(placed("old", "lab/a", "c", 100));
        log.accept(completed("old", 900));
        log.accept(submitted("other-cluster", "lab/a", "d", 1, 1, 60, true, null, 2000));
        log.accept(submitted("after", "lab/a", "c", 1, 1, 60, true, null, TO + 1));

        LogTrace.Trace t = build();

        assertThat(byId(t)).containsOnlyKeys("stopped");
        assertThat(byId(t).get("stopped").durationSeconds()).isEqualTo(400);
        assertThat(t.notes().rejected).isEqualTo(1);
        assertThat(t.notes().endedUnplaced).isEqualTo(1);
    }

    @Test
    void givenAJobRunningAcrossTheWindowStart_whenBuilt_thenItEntersAtTheStartWithTheWorkInsideTheWindow() {
        log.accept(submitted("carried", "lab/b", "c", 1, 2, 600, true, null, 200));
        log.accept(placed("carried", "lab/b", "c", 500));
        log.accept(completed("carried", 1600));

        LogTrace.Trace t = build();

        TraceJob j = t.jobs().get(0);
        assertThat(j.submitSeconds()).isZero();
        assertThat(j.durationSeconds()).isEqualTo(600);
        assertThat(t.notes().carriedIn).isEqualTo(1);
        assertThat(t.recorded().get("lab/b").deliveredGpuSeconds).isEqualTo(1200.0);
    }

    @Test
    void givenTreeChanges_whenBuilt_thenTheTreeIsAsRecordedAtTheEndParentsFirst() {
        log.accept(defined("lab/a", "lab", 3, 5000));         // a change inside the window counts
        log.accept(defined("lab/b", "lab", 7, TO + 10));      // a change after it does not
        log.accept(defined("org2/x", "org2", 1, 6000));       // a child recorded before its parent
        log.accept(defined("org2", null, 1, 6000));
        log.accept(defined("lab/gone", "lab", 1, 100));
        log.accept(removed("lab/gone", 7000));

        BudgetFile tree = build().budgets();

        assertThat(tree.entries()).extracting(BudgetFile.Entry::account)
                .containsExactly("lab", "lab/a", "lab/b", "org2", "org2/x");
        assertThat(tree.entries()).filteredOn(e -> e.account().equals("lab/a")).first()
                .extracting(BudgetFile.Entry::share).isEqualTo(3.0);
        assertThat(tree.entries()).filteredOn(e -> e.account().equals("lab/b")).first()
                .extracting(BudgetFile.Entry::share).isEqualTo(1.0);
    }

    @Test
    void givenNodesOfSeveralClusters_whenBuilt_thenOnlyTheClustersNodesCountAndAnUnknownClusterIsNamed() {
        log.accept(registered("n3", "c", 4, 0));
        log.accept(registered("m1", "d", 8, 0));
        log.accept(registered("n4", "c", 8, TO + 5)); // registered after the window

        LogTrace.Trace t = build();

        assertThat(t.nodes()).isEqualTo(3);
        assertThat(t.gpusPerNode()).isEqualTo(8);
        assertThat(t.notes().heterogeneousNodes).isTrue();
        assertThat(log.clusters()).containsExactly("c", "d");
        assertThatThrownBy(() -> log.build("nope", at(FROM).toEpochMilli(), at(TO).toEpochMilli()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--cluster nope")
                .hasMessageContaining("c, d");
    }

    @Test
    void givenADebugShapedJob_whenBuilt_thenItIsADebugJob() {
        log.accept(submitted("dbg", "lab/a", "c", 1, 2, 600, false, null, 2000));
        log.accept(submitted("train", "lab/a", "c", 1, 2, 3600, false, null, 2000));

        Map<String, TraceJob> jobs = byId(build());

        assertThat(jobs.get("dbg").debug()).isTrue();
        assertThat(jobs.get("train").debug()).isFalse();
    }
}
