package dev.allot.budget.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.PreemptionReason;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GPU runs from job-events: opened by a placement, closed by what ends the run, with how it ended. */
class TimelineTest {

    static final long T0 = 1_800_000_000_000L;
    final Timeline timeline = new Timeline();

    @Test
    void givenAPlacementThenAPreemptionThenAPlacementElsewhereThatCompletes_whenAsked_thenEachRunIsItsOwnSegment() {
        event("j1", JobState.RUNNING, 0, placed("n1", List.of(0, 1)));
        event("j1", null, 1, JobStarted.newBuilder().setNodeId("n1").setNodeEpoch(1L).setReplicaIndex(0).setPid(1L).build());
        event("j1", JobState.WAITING, 60, JobPreempted.newBuilder().setReason(PreemptionReason.FAIR_SHARE)
                .setExplanation("x").setPreemptorJobId("j2").setPreemptorAccount("lab/b").setRequeue(true).build());
        event("j1", JobState.RUNNING, 100, placed("n2", List.of(3)));

        List<Timeline.Segment> running = timeline.between("c1", T0, T0 + 200_000);
        assertThat(running).extracting(s -> s.nodeId() + "#" + s.gpu() + " " + s.endedBy() + " " + s.preemptor())
                .containsExactlyInAnyOrder("n1#0 preempted FAIR_SHARE j2", "n1#1 preempted FAIR_SHARE j2", "n2#3 null null");
        assertThat(running).filteredOn(s -> s.nodeId().equals("n2")).singleElement()
                .satisfies(s -> assertThat(s.endMillis()).isEqualTo(-1));

        event("j1", JobState.COMPLETED, 150, JobCompleted.newBuilder().build());
        assertThat(timeline.between("c1", T0 + 120_000, T0 + 200_000)).singleElement()
                .satisfies(s -> assertThat(s.endedBy()).isEqualTo("completed"));
        // a period before the job ran, or another cluster, shows nothing
        assertThat(timeline.between("c1", T0 - 60_000, T0)).isEmpty();
        assertThat(timeline.between("c2", T0, T0 + 200_000)).isEmpty();
    }

    @Test
    void givenALostNode_whenTheRunEnds_thenItIsMarkedAsLost() {
        event("j3", JobState.RUNNING, 0, placed("n1", List.of(0)));
        event("j3", JobState.WAITING, 40, new JobLost("n1", "missed heartbeats"));
        assertThat(timeline.between("c1", T0, T0 + 60_000)).singleElement()
                .satisfies(s -> assertThat(s.endedBy()).isEqualTo("node lost"));
    }

    private static JobPlaced placed(String node, List<Integer> gpus) {
        return JobPlaced.newBuilder().setCluster("c1").setBudget("lab/a").setChargeMode(ChargeMode.ALLOCATED)
                .setAttempt(1).setExplanation(null).setProtectedUntil(Instant.ofEpochMilli(T0))
                .setAssignments(List.of(new GpuAssignment(node, 1L, 0, gpus))).build();
    }

    private void event(String job, JobState after, long second, Object payload) {
        timeline.event(JobEvent.newBuilder().setEventId(job + second).setOccurredAt(Instant.ofEpochMilli(T0 + second * 1000))
                .setJobId(job).setStateAfter(after).setPayload(payload).build());
    }
}
