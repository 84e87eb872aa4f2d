package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.ordering.DebugLane;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The debug lane: small short jobs go first, within a per-account bound, with a few nodes held. */
class DebugLaneTest {

    private static final DebugLane NO_RESERVE = new DebugLane(15 * MIN, 8, 8, 0);

    /** "hog" ran the whole cluster for two hours; "fresh" holds 4 of 8 GPUs with a long protected job. */
    private static Fixture hogRanLongerThanFresh(DebugLane lane, int nodes) {
        Fixture f = new Fixture(SchedulerConfig.defaults().withDebugLane(lane)).teams("fresh", "hog")
                .nodes("c1", nodes, 8);
        for (int i = 0; i < nodes; i++) {
            f.submit("hog-past-" + i, "hog", 1, 8, HOUR, true);
        }
        f.schedule();
        f.advance(2 * HOUR);
        for (int i = 0; i < nodes; i++) {
            f.s.jobFinished(f.now, "hog-past-" + i);
        }
        f.submit("fresh-long", "fresh", 1, 4, 8 * HOUR, true);
        f.schedule();
        f.advance(MIN);
        return f;
    }

    @Test
    void aDebugJobOfTheAccountRankedLastStartsBeforeBetterRankedWork() {
        // given hog ranks last and 4 GPUs are free
        Fixture f = hogRanLongerThanFresh(NO_RESERVE, 1);
        // when fresh asks for them with a normal job and hog with a 10-minute debug job
        f.submit("fresh-train", "fresh", 1, 4, HOUR, true);
        f.submit("hog-debug", "hog", 1, 4, 10 * MIN, false);
        List<Decision> d = f.schedule();
        // then the debug job takes them, says why, and fresh's job waits
        Decision.Place p = Fixture.only(d, Decision.Place.class).get(0);
        assertThat(p.jobId()).isEqualTo("hog-debug");
        assertThat(p.reason()).contains("debug lane");
        assertThat(f.state("fresh-train")).isEqualTo(JobState.WAITING);
        assertThat(f.s.explainWaiting("fresh-train").orElseThrow().position()).isEqualTo(2);
    }

    /** Lane off; a 16-minute minimum runtime; 4 GPUs against a lane of jobs up to 2 GPUs. */
    static Stream<Arguments> notDebugShaped() {
        return Stream.of(Arguments.of(DebugLane.off(), 10 * MIN), Arguments.of(NO_RESERVE, 16 * MIN),
                Arguments.of(new DebugLane(15 * MIN, 2, 8, 0), 10 * MIN));
    }

    @ParameterizedTest
    @MethodSource("notDebugShaped")
    void withoutTheDebugShapeTheJobWaitsItsAccountsTurn(DebugLane lane, long minRuntime) {
        Fixture f = hogRanLongerThanFresh(lane, 1);
        f.submit("fresh-train", "fresh", 1, 4, HOUR, true);
        f.submit("hog-test", "hog", 1, 4, minRuntime, false);
        f.schedule();
        assertThat(f.state("fresh-train")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("hog-test")).isEqualTo(JobState.WAITING);
    }

    @Test
    void anAccountHoldsAtMostItsLaneBound() {
        // given 12 free GPUs on two nodes
        Fixture f = hogRanLongerThanFresh(NO_RESERVE, 2);
        // when hog sends three 4-GPU debug jobs (12 GPUs, bound 8) and fresh a 4-GPU job
        f.submit("hog-debug-1", "hog", 1, 4, 10 * MIN, false);
        f.advance(1);
        f.submit("hog-debug-2", "hog", 1, 4, 10 * MIN, false);
        f.advance(1);
        f.submit("hog-debug-3", "hog", 1, 4, 10 * MIN, false);
        f.submit("fresh-train", "fresh", 1, 4, HOUR, true);
        f.schedule();
        // then two debug jobs ran first, fresh's job next, the third debug job waits in hog's turn
        assertThat(f.state("hog-debug-1")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("hog-debug-2")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("fresh-train")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("hog-debug-3")).isEqualTo(JobState.WAITING);
        // and when one debug job ends, the third joins the lane again
        f.advance(5 * MIN);
        f.s.jobFinished(f.now, "hog-debug-1");
        f.schedule();
        assertThat(f.state("hog-debug-3")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void theHeldNodeTakesOnlyLaneAndUnallocatedWork() {
        // given two empty nodes and a first debug job that came and went: one node is held (the higher id)
        Fixture f = new Fixture(SchedulerConfig.defaults().withDebugLane(new DebugLane(15 * MIN, 8, 8, 2)))
                .teams("fresh", "hog").nodes("c1", 2, 8);
        f.schedule();
        assertThat(f.s.nodes()).noneMatch(NodeView::debugReserve); // no debug work yet: nothing held
        f.submit("first-debug", "hog", 1, 1, 5 * MIN, false);
        f.schedule();
        f.s.jobFinished(f.now, "first-debug");
        f.schedule();
        assertThat(f.s.node("c1-n001").orElseThrow().debugReserve()).isTrue();
        assertThat(f.s.node("c1-n000").orElseThrow().debugReserve()).isFalse();
        // when two whole-node allocated jobs arrive, then an unallocated one
        f.submit("train-1", "fresh", 1, 8, HOUR, true).submit("train-2", "fresh", 1, 8, HOUR, true);
        f.submit("free", "hog", 1, 8, 0, true);
        f.schedule();
        // then only one allocated job runs; the unallocated job fills the held node
        assertThat(f.state("train-1")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("train-2")).isEqualTo(JobState.WAITING);
        assertThat(f.state("free")).isEqualTo(JobState.RUNNING);
        assertThat(f.s.job("free").orElseThrow().placement().get(0).nodeId()).isEqualTo("c1-n001");
        // and a debug job of any account displaces it there at once
        f.advance(MIN);
        f.submit("hog-debug", "hog", 1, 2, 10 * MIN, false);
        List<Decision> d = f.schedule();
        assertThat(Fixture.only(d, Decision.Preempt.class)).extracting(Decision.Preempt::jobId).containsExactly("free");
        assertThat(f.s.job("hog-debug").orElseThrow().placement().get(0).nodeId()).isEqualTo("c1-n001");
        assertThat(f.state("train-2")).isEqualTo(JobState.WAITING);
    }

    /**
     * hog's protected window ended on n000 ten minutes ago; n001 runs other's fresh debug job; then fresh
     * (nothing used) submits a debug job: it may displace hog's work by ratio and share.
     */
    private static List<Decision> aDebugJobMeetsAllocatedWork(DebugLane lane) {
        Fixture f = new Fixture(SchedulerConfig.defaults().withDebugLane(lane)).teams("fresh", "hog", "other")
                .nodes("c1", 2, 8);
        f.submit("first-debug", "hog", 1, 1, 5 * MIN, false);
        f.schedule();
        f.s.jobFinished(f.now, "first-debug");
        f.submit("hog-train", "hog", 1, 8, HOUR, true);
        f.schedule();
        f.advance(HOUR + 10 * MIN); // (within the loss cap of 2 h per GPU)
        f.submit("other-debug", "other", 1, 8, 10 * MIN, true);
        f.schedule();
        assertThat(f.state("other-debug")).isEqualTo(JobState.RUNNING);
        f.advance(MIN);
        f.submit("fresh-debug", "fresh", 1, 8, 10 * MIN, true);
        return f.schedule();
    }

    @Test
    void whereTheLaneHoldsNodesADebugJobWaitsForThemRatherThanDisplaceAllocatedWork() {
        // one node in two held: the debug job waits for the lane's next end (Goodput.laneDisplacesAllocated off)
        List<Decision> d = aDebugJobMeetsAllocatedWork(new DebugLane(15 * MIN, 8, 8, 2));
        assertThat(Fixture.only(d, Decision.Preempt.class)).isEmpty();
        assertThat(Fixture.only(d, Decision.Place.class)).isEmpty();
    }

    @Test
    void whereTheLaneHoldsNoNodeADebugJobDisplacesAllocatedWorkLikeAnyJobOfItsAccount() {
        // no node held (a small cluster): a team whose jobs are all short would never take back its share
        List<Decision> d = aDebugJobMeetsAllocatedWork(NO_RESERVE);
        assertThat(Fixture.only(d, Decision.Preempt.class)).extracting(Decision.Preempt::jobId)
                .containsExactly("hog-train");
    }

    @Test
    void theHeldNodesFollowTheLanesDemandWithinTheCap() {
        // given four nodes and a cap of one node in two: nothing is held before any debug work
        Fixture f = new Fixture(SchedulerConfig.defaults().withDebugLane(new DebugLane(15 * MIN, 8, 8, 2)))
                .teams("fresh", "hog").nodes("c1", 4, 8);
        f.schedule();
        assertThat(f.s.nodes()).noneMatch(NodeView::debugReserve);
        // when a 1-GPU debug job comes, one node is held for it and one spare, and both stay after
        // it ends (released only when two above the need)
        f.submit("first-debug", "hog", 1, 1, 5 * MIN, false);
        f.schedule();
        f.s.jobFinished(f.now, "first-debug");
        f.schedule();
        assertThat(f.s.nodes()).filteredOn(NodeView::debugReserve).extracting(NodeView::nodeId)
                .containsExactly("c1-n002", "c1-n003");
        // and with 8 GPUs of debug work waiting the same two serve it
        f.submit("train", "fresh", 3, 8, HOUR, true);
        f.submit("hog-debug", "hog", 1, 8, 10 * MIN, false);
        f.schedule();
        assertThat(f.s.nodes()).filteredOn(NodeView::debugReserve).extracting(NodeView::nodeId)
                .containsExactly("c1-n002", "c1-n003");
        assertThat(f.state("hog-debug")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("train")).isEqualTo(JobState.WAITING); // only two open nodes left for 3 x 8
        // and a drained held node is replaced by an open one
        f.s.drainNode(f.now, "c1-n003");
        f.schedule();
        assertThat(f.s.nodes()).filteredOn(NodeView::debugReserve).hasSize(1);
    }
}
