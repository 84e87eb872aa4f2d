package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.Hold;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {

    @Test
    void aGangIsPlacedWholeOnDistinctNodesOrNotAtAll() {
        // given 3 nodes of 8 GPUs
        Fixture f = new Fixture().teams("a").nodes("c1", 3, 8);
        // when a 3 x 4 gang and a 4 x 1 gang arrive
        f.submit("gang", "a", 3, 4, HOUR, true).submit("too-wide", "a", 4, 1, HOUR, true);
        List<Decision> d = f.schedule();
        // then the first spans three distinct nodes, the second cannot exist on 3 nodes
        Decision.Place p = Fixture.only(d, Decision.Place.class).get(0);
        assertThat(p.jobId()).isEqualTo("gang");
        assertThat(p.replicas()).extracting(ReplicaPlacement::nodeId).doesNotHaveDuplicates().hasSize(3);
        assertThat(p.replicas()).allSatisfy(r -> assertThat(r.gpuIndices()).hasSize(4));
        assertThat(f.state("too-wide")).isEqualTo(JobState.WAITING);
        assertThat(f.s.explainWaiting("too-wide").orElseThrow().hold()).isEqualTo(Hold.NO_SUCH_SHAPE);
    }

    @Test
    void bestFitFillsFragmentedNodesAndKeepsWholeNodesFree() {
        // given two 8-GPU nodes, one with 6 GPUs taken
        Fixture f = new Fixture().teams("a").nodes("c1", 2, 8);
        f.submit("six", "a", 1, 6, HOUR, true);
        f.schedule();
        // when a 2-GPU job arrives
        f.submit("two", "a", 1, 2, HOUR, true);
        Decision.Place p = Fixture.only(f.schedule(), Decision.Place.class).get(0);
        // then it lands next to the 6-GPU job and the other node stays whole for a large job
        String sixNode = f.s.job("six").orElseThrow().placement().get(0).nodeId();
        assertThat(p.replicas().get(0).nodeId()).isEqualTo(sixNode);
        assertThat(p.replicas().get(0).gpuIndices()).containsExactly(6, 7);
        f.submit("eight", "a", 1, 8, HOUR, true);
        assertThat(Fixture.only(f.schedule(), Decision.Place.class)).extracting(Decision.Place::jobId)
                .containsExactly("eight");
    }

    @Test
    void nodesMayDifferInGpuCount() {
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 4).nodes("c1", 1, 8);
        f.submit("big", "a", 1, 6, HOUR, true).submit("small", "a", 1, 4, HOUR, true);
        List<Decision.Place> places = Fixture.only(f.schedule(), Decision.Place.class);
        assertThat(places).hasSize(2);
        assertThat(f.s.job("big").orElseThrow().placement().get(0).nodeId()).isEqualTo("c1-n001");
        assertThat(f.s.job("small").orElseThrow().placement().get(0).nodeId()).isEqualTo("c1-n000");
    }

    @Test
    void finishedJobsFreeTheirGpuIndices() {
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 8);
        f.submit("x", "a", 1, 8, HOUR, true).submit("y", "a", 1, 8, HOUR, true);
        f.schedule();
        assertThat(f.state("y")).isEqualTo(JobState.WAITING);
        f.advance(HOUR);
        f.s.jobFinished(f.now, "x");
        Decision.Place p = Fixture.only(f.schedule(), Decision.Place.class).get(0);
        assertThat(p.jobId()).isEqualTo("y");
        assertThat(p.replicas().get(0).gpuIndices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(f.state("x")).isEqualTo(JobState.FINISHED);
    }

    @Test
    void cancelWithdrawsWaitingAndRunningJobs() {
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 8);
        f.submit("x", "a", 1, 8, HOUR, true).submit("y", "a", 1, 8, HOUR, true);
        f.schedule();
        f.s.cancel(f.now, "y");
        f.s.cancel(f.now, "x");
        assertThat(f.state("x")).isEqualTo(JobState.FINISHED);
        assertThat(f.state("y")).isEqualTo(JobState.FINISHED);
        assertThat(f.s.node("c1-n000").orElseThrow().freeGpus()).isEqualTo(8);
    }
}
