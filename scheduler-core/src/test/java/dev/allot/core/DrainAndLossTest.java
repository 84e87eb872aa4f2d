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
    void anUnreachableNodeKeepsItsJobsTakesNoNewWorkEvenInACopyAndTakesWorkAgainWhenHeardFrom() {
        // given two nodes, one running a job
        Fixture f = new Fixture().teams("a").nodes("c1", 2, 8);
        f.submit("running", "a", 1, 4, HOUR, false);
        f.schedule();
        String node = f.s.job("running").orElseThrow().placement().get(0).nodeId();
        String other = node.equals("c1-n000") ? "c1-n001" : "c1-n000";
        // when both fall silent
        f.advance(MIN);
        f.s.nodeUnreachable(f.now, node);
        f.s.nodeUnreachable(f.now, other);
        f.submit("new", "a", 1, 4, HOUR, true);
        List<Decision> d = f.schedule();
        // then the running job stays, and the new one waits (4 GPUs are free on each node)
        assertThat(d).noneMatch(x -> x instanceof Decision.Place || x instanceof Decision.Requeue
                || x instanceof Decision.Preempt);
        assertThat(f.state("running")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("new")).isEqualTo(JobState.WAITING);
        assertThat(f.s.node(node).orElseThrow().unreachable()).isTrue();
        Scheduler copy = f.s.copy();
        assertThat(copy.schedule(f.now)).noneMatch(x -> x instanceof Decision.Place);
        // when the other is heard from, it takes the job; the silent one is lost later and comes back reachable
        f.s.nodeReachable(f.now, other);
        f.schedule();
        assertThat(f.s.job("new").orElseThrow().placement()).extracting(ReplicaPlacement::nodeId)
                .containsExactly(other);
        f.s.nodeLost(f.now, node);
        assertThat(f.s.node(node).orElseThrow().unreachable()).isTrue();
        f.s.registerNode(f.now, new NodeSpec("c1", node, 8));
        assertThat(f.s.node(node).orElseThrow().unreachable()).isFalse();
        assertThat(Fixture.only(f.schedule(), Decision.Place.class)).extracting(Decision.Place::jobId)
                .containsExactly("running");
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
