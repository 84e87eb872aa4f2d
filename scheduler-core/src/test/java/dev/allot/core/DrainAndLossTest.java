package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DrainAndLossTest {

    @Test
    void drainReleasesUnallocatedAtOnceAllocatedWhenTheirMinimumRuntimeEndsThenReportsDrained() {
        // given a node with an unallocated job and an allocated one protected for an hour
        Fixture f = new Fixture().teams("a").nodes("c1", 2, 8);
        f.submit("free", "a", 1, 4, 0, true).submit("alloc", "a", 1, 4, HOUR, false);
        f.schedule();
        String node = f.s.job("alloc").orElseThrow().placement().get(0).nodeId();
        assertThat(f.s.job("free").orElseThrow().placement().get(0).nodeId()).isEqualTo(node);
        // when it drains
        f.advance(MIN);
        f.s.drainNode(f.now, node);
        List<Decision> d = f.schedule();
        // then the unallocated job is released at once (and lands on the other node), the allocated one stays
        assertThat(Fixture.only(d, Decision.ReleaseForDrain.class)).extracting(Decision.ReleaseForDrain::jobId)
                .containsExactly("free");
        assertThat(Fixture.only(d, Decision.NodeDrained.class)).isEmpty();
        assertThat(f.state("alloc")).isEqualTo(JobState.RUNNING);
        f.schedule();
        assertThat(f.s.job("free").orElseThrow().placement().get(0).nodeId()).isNotEqualTo(node);
        // and new work does not land on the draining node
        f.submit("new", "a", 1, 4, HOUR, true);
        f.submit("new2", "a", 1, 4, HOUR, true);
        f.schedule();
        assertThat(f.s.node(node).orElseThrow().jobIds()).containsExactly("alloc");
        assertThat(f.s.jobs()).filteredOn(j -> j.state() == JobState.WAITING).isNotEmpty();
        // when the minimum runtime ends
        f.advance(HOUR - MIN);
        d = f.schedule();
        Decision.ReleaseForDrain r = Fixture.only(d, Decision.ReleaseForDrain.class).get(0);
        assertThat(r.jobId()).isEqualTo("alloc");
        assertThat(r.keptSubmitTime()).isFalse();
        assertThat(Fixture.only(d, Decision.NodeDrained.class)).extracting(Decision.NodeDrained::nodeId)
                .containsExactly(node);
        assertThat(f.s.node(node).orElseThrow().jobIds()).isEmpty();
        // reported once
        assertThat(Fixture.only(f.schedule(), Decision.NodeDrained.class)).isEmpty();
        // when undrained it takes work again
        f.s.undrainNode(f.now, node);
        f.schedule();
        assertThat(f.s.node(node).orElseThrow().jobIds()).isNotEmpty();
    }

    @Test
    void aLostNodesJobsRequeueAndTheReturningNodeIsFenced() {
        // given a 2-replica gang over two nodes
        Fixture f = new Fixture().teams("a").nodes("c1", 2, 8);
        long submitted = f.now;
        f.submit("gang", "a", 2, 8, HOUR, true);
        f.schedule();
        // when one node is lost
        f.advance(MIN);
        f.s.nodeLost(f.now, "c1-n000");
        List<Decision> d = f.schedule();
        // then the whole gang is requeued (keeping its submit time) and cannot be placed on one node
        Decision.Requeue r = Fixture.only(d, Decision.Requeue.class).get(0);
        assertThat(r.jobId()).isEqualTo("gang");
        assertThat(r.nodeId()).isEqualTo("c1-n000");
        assertThat(f.state("gang")).isEqualTo(JobState.WAITING);
        assertThat(f.s.job("gang").orElseThrow().queuedSinceMillis()).isEqualTo(submitted);
        assertThat(f.s.node("c1-n001").orElseThrow().freeGpus()).isEqualTo(8);
        // when the node returns it has a new epoch and the gang is placed again
        long epoch = f.s.registerNode(f.now, new NodeSpec("c1", "c1-n000", 8));
        assertThat(epoch).isEqualTo(2);
        Decision.Place p = Fixture.only(f.schedule(), Decision.Place.class).get(0);
        assertThat(p.replicas()).filteredOn(rp -> rp.nodeId().equals("c1-n000"))
                .extracting(ReplicaPlacement::nodeEpoch).containsExactly(2L);
    }

    @Test
    void aLostNodeStillCountsInWhatEveryoneIsOwed() {
        // a loss is the scheduler's liveness verdict, not a fact of the log the accounting-service reads:
        // what an account is owed is counted on the registered GPUs, so both count it the same
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 2, 8);
        f.advance(HOUR);
        f.s.nodeLost(f.now, "c1-n000");
        f.advance(HOUR);
        f.s.advanceTo(f.now);
        assertThat(f.s.usage("c1", "a").entitledGpuSeconds()).isEqualTo(2 * 8 * 3600.0);
    }
}
