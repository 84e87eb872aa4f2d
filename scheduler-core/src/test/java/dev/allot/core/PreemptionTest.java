package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PreemptionTest {

    /** Team "hog" has used the cluster for hours; "fresh" has used nothing. */
    private Fixture hogAndFresh(int nodes) {
        return hogAndFresh(nodes, 8);
    }

    private Fixture hogAndFresh(int nodes, int gpus) {
        return new Fixture().teams("fresh", "hog").nodes("c1", nodes, gpus);
    }

    @Test
    void anAllocatedJobDisplacesUnallocatedWorkAtOnce() {
        // given unallocated work filling the node, just placed
        Fixture f = hogAndFresh(1);
        f.submit("free", "hog", 1, 8, 0, true);
        f.schedule();
        // when an allocated job of any account arrives
        f.advance(MIN);
        f.submit("alloc", "hog", 1, 4, HOUR, true);
        List<Decision> d = f.schedule();
        // then
        Decision.Preempt p = Fixture.only(d, Decision.Preempt.class).get(0);
        assertThat(p.jobId()).isEqualTo("free");
        assertThat(p.preemptorJobId()).isEqualTo("alloc");
        assertThat(p.victimMode()).isEqualTo(ChargeMode.UNALLOCATED);
        assertThat(p.reason()).contains("unallocated jobs may be displaced at any time");
        assertThat(d.indexOf(p)).isLessThan(d.indexOf(Fixture.only(d, Decision.Place.class).get(0)));
        assertThat(f.state("free")).isEqualTo(JobState.WAITING);
    }

    @Test
    void workRunningBeforeANodeJoinsCanStillBeDisplaced() {
        // given unallocated work on the only node, and a node (full at once) joining after it started
        Fixture f = hogAndFresh(1);
        f.submit("free", "hog", 1, 8, 0, true);
        f.schedule();
        f.advance(MIN);
        f.s.registerNode(f.now, new NodeSpec("c1", "a-first", 8)); // sorts before the others: every index moves
        f.submit("filler", "hog", 1, 8, HOUR, true);
        f.schedule();
        assertThat(f.state("filler")).isEqualTo(JobState.RUNNING);
        // when an allocated job needs a whole node
        f.advance(MIN);
        f.submit("alloc", "fresh", 1, 8, HOUR, true);
        List<Decision> d = f.schedule();
        // then the work that ran before the node joined is still found and displaced
        assertThat(Fixture.only(d, Decision.Preempt.class)).extracting(Decision.Preempt::jobId).containsExactly("free");
        assertThat(f.state("alloc")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void anUnallocatedJobNeverPreempts() {
        Fixture f = hogAndFresh(1);
        f.submit("free1", "hog", 1, 8, 0, true);
        f.schedule();
        f.submit("free2", "fresh", 1, 8, 0, true);
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
    }

    @Test
    void aProtectedJobIsNeverPreempted() {
        // given hog's job with 2 h minimum runtime filling the node
        Fixture f = hogAndFresh(1);
        f.submit("hog-job", "hog", 1, 8, 2 * HOUR, true);
        f.schedule();
        // when fresh (ratio 0) asks within the protected window
        f.advance(HOUR);
        f.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        // then nothing is preempted until the window ends
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        f.advance(HOUR - 1);
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        f.advance(1);
        Decision.Preempt p = Fixture.only(f.schedule(), Decision.Preempt.class).get(0);
        assertThat(p.jobId()).isEqualTo("hog-job");
        assertThat(p.preemptorRatio()).isZero();
        assertThat(p.victimRatio()).isGreaterThan(0.1);
        assertThat(p.reason()).contains("fresh").contains("hog").contains("ratio");
        assertThat(f.state("fresh-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void accountsWithinTheMarginDoNotDisplaceEachOther() {
        // given two teams with nearly equal ratios
        Fixture f = hogAndFresh(2);
        f.submit("h", "hog", 1, 8, 15 * MIN, true).submit("g", "fresh", 1, 8, 15 * MIN, true);
        f.schedule();
        f.advance(HOUR);
        // when each submits more
        f.submit("h2", "hog", 1, 8, 15 * MIN, true).submit("g2", "fresh", 1, 8, 15 * MIN, true);
        // then nobody is preempted: equal ratios are within the margin
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
    }

    @Test
    void aJobOfTheSameAccountIsNeverDisplaced() {
        Fixture f = hogAndFresh(1);
        f.submit("old", "hog", 1, 8, 15 * MIN, true);
        f.schedule();
        f.advance(HOUR);
        f.submit(JobRequest.of("new", "hog", "c1", 1, 8, 15 * MIN, true, f.now).withPriority(10));
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
    }

    @Test
    void unallocatedVictimsGoBeforeAllocatedOnes() {
        // given node 0 with an allocated hog job past protection, node 1 with unallocated work
        Fixture f = hogAndFresh(2);
        f.submit("hog-alloc", "hog", 1, 8, 15 * MIN, true);
        f.schedule();
        f.advance(HOUR);
        f.submit("hog-free", "hog", 1, 8, 0, true);
        f.schedule();
        // when fresh needs one node
        f.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        // then the unallocated job is displaced, the allocated one keeps running
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactly("hog-free");
        assertThat(f.state("hog-alloc")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void amongCandidatesFewestGpusThenResumableThenLeastWorkLost() {
        // given three 2-GPU and one 4-GPU hog jobs past protection on one 10-GPU node, differing in resumability and checkpoints
        Fixture f = hogAndFresh(1, 10);
        f.submit("nonres", "hog", 1, 2, 15 * MIN, false).submit("res-old-ckpt", "hog", 1, 2, 15 * MIN, true)
                .submit("res-new-ckpt", "hog", 1, 2, 15 * MIN, true).submit("big", "hog", 1, 4, 15 * MIN, true);
        f.schedule();
        f.advance(30 * MIN);
        f.s.jobCheckpointed(f.now, "big");
        f.advance(20 * MIN);
        f.s.jobCheckpointed(f.now, "res-old-ckpt");
        f.advance(9 * MIN);
        f.s.jobCheckpointed(f.now, "res-new-ckpt");
        f.advance(MIN);
        // when fresh needs 2 GPUs
        f.submit("fresh-job", "fresh", 1, 2, HOUR, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        // then the resumable job with the newest checkpoint goes
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactly("res-new-ckpt");
        assertThat(p.get(0).keptSubmitTime()).isTrue();
    }

    @Test
    void resumableVictimsKeepTheirSubmitTimeNonResumableRestartFromNow() {
        Fixture f = hogAndFresh(1);
        long t0 = f.now;
        f.submit("res", "hog", 1, 4, 15 * MIN, true).submit("nonres", "hog", 1, 4, 15 * MIN, false);
        f.schedule();
        f.advance(HOUR);
        f.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        assertThat(p).hasSize(2);
        assertThat(f.s.job("res").orElseThrow().queuedSinceMillis()).isEqualTo(t0);
        assertThat(f.s.job("nonres").orElseThrow().queuedSinceMillis()).isEqualTo(f.now);
        assertThat(f.s.job("res").orElseThrow().requeues()).isEqualTo(1);
    }

    @Test
    void theDisplacedAccountCannotDisplaceBackRightAway() {
        // given fresh displaced hog
        Fixture f = hogAndFresh(1);
        f.submit("hog-job", "hog", 1, 8, 15 * MIN, true);
        f.schedule();
        f.advance(HOUR);
        f.submit("fresh-job", "fresh", 1, 8, 15 * MIN, true);
        f.schedule();
        assertThat(f.state("fresh-job")).isEqualTo(JobState.RUNNING);
        // when fresh's protection ends shortly after
        f.advance(20 * MIN);
        // then hog (still higher ratio) does not take the node back
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        assertThat(f.state("fresh-job")).isEqualTo(JobState.RUNNING);
    }
}
