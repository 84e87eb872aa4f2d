package dev.allot.core.preemption;

import static dev.allot.core.state.ClusterBuilder.HOUR;
import static dev.allot.core.state.ClusterBuilder.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.cluster.Node;
import dev.allot.core.state.ClusterBuilder;
import dev.allot.core.state.Job;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The victim rules of {@link VictimOrder}, asked of the search directly. */
class VictimSearchTest {
    private final ClusterBuilder given = new ClusterBuilder();
    private final Set<Job> placedThisPass = Collections.newSetFromMap(new IdentityHashMap<>());

    private VictimSearch search(long t) {
        given.cs.preemptible.advanceTo(given.cs, t);
        return new VictimSearch(given.cs, t, 0, placedThisPass);
    }

    private static List<String> ids(List<Job> jobs) {
        return jobs.stream().map(Job::jobId).toList();
    }

    @Test
    void givenUnallocatedAndAllocatedVictims_whenSelecting_thenOnlyUnallocatedOnesAreTaken() {
        // given two full 8-GPU nodes: allocated work on the first, unallocated on the second
        given.nodes(2, 8);
        given.running("alloc", "a", 8, HOUR, T0, given.node(1));
        given.running("free", "b", 8, 0, T0, given.node(2));
        // when a 1 x 4 job looks for victims it may displace, allocated ones included
        VictimSearch.Selection s = search(T0 + 2 * HOUR).select(1, 4, Node::available, v -> true, true);
        // then rule 1: unallocated victims first, so the second node and its job
        assertThat(ids(s.victims())).containsExactly("free");
        assertThat(s.nodes()).extracting(Node::nodeId).containsExactly("c1-n002");
    }

    @Test
    void givenNodesThatCostDifferently_whenSelecting_thenTheNodeLosingFewestGpusIsChosen() {
        // given node 1 holds one 8-GPU job, node 2 has 4 free and two 2-GPU jobs (all unallocated)
        given.nodes(2, 8);
        given.running("big", "a", 8, 0, T0, given.node(1));
        given.running("small-b", "a", 2, 0, T0, given.node(2));
        given.running("small-a", "a", 2, 0, T0, given.node(2));
        // when a job needs 6 GPUs on one node
        VictimSearch.Selection s = search(T0 + 1000).select(1, 6, Node::available, v -> true, true);
        // then rule 2 picks node 2 (2 GPUs lost, not 8) and rule 3 the job first by id among equals
        assertThat(s.nodes()).extracting(Node::nodeId).containsExactly("c1-n002");
        assertThat(ids(s.victims())).containsExactly("small-a");
    }

    @Test
    void givenOnlyVictimsThePreemptorMayNotDisplace_whenSelecting_thenThereIsNoSelection() {
        // given a full node running allocated work past its protection
        given.nodes(1, 8);
        Job victim = given.running("alloc", "a", 8, HOUR, T0, given.node(1));
        // when the policy allows displacing nobody
        VictimSearch.Selection s = search(T0 + 2 * HOUR).select(1, 8, Node::available, v -> v != victim, true);
        // then nothing is chosen
        assertThat(s).isNull();
    }

    @Test
    void givenAJobPlacedInThisPass_whenSelecting_thenItIsNoVictim() {
        // given unallocated work placed by this very pass
        given.nodes(1, 8);
        placedThisPass.add(given.running("fresh", "a", 8, 0, T0, given.node(1)));
        // when a job looks for room at the same time
        VictimSearch.Selection s = search(T0).select(1, 4, Node::available, v -> true, true);
        // then it finds none
        assertThat(s).isNull();
    }

    @Test
    void givenAGangAndANodeThatMayNotTakeIt_whenSelecting_thenEveryReplicaGetsAnEligibleNode() {
        // given three full nodes of unallocated work, the first one not eligible (say, draining)
        given.nodes(3, 4);
        for (int i = 1; i <= 3; i++) {
            given.running("u" + i, "a", 4, 0, T0, given.node(i));
        }
        // when a 2 x 4 gang looks for room
        VictimSearch.Selection s = search(T0 + 1000).select(2, 4, n -> !n.nodeId().equals("c1-n001"), v -> true, true);
        // then it gets nodes 2 and 3, displacing their jobs
        assertThat(s.nodes()).extracting(Node::nodeId).containsExactly("c1-n002", "c1-n003");
        assertThat(ids(s.victims())).containsExactly("u2", "u3");
    }

    @Test
    void givenSeededWorlds_whenSearchingOnlyTheNodesOfTheAllowedAccounts_thenTheChoiceIsTheScanOfEveryNode() {
        int pruned = 0;
        int found = 0;
        for (long seed = 1; seed <= 40; seed++) {
            // given 24 nodes of 8 GPUs, mostly full, with work of six accounts of both charge modes
            java.util.Random r = new java.util.Random(seed);
            ClusterBuilder world = new ClusterBuilder();
            world.nodes(24, 8);
            int n = 0;
            for (int i = 1; i <= 24; i++) {
                int left = 8 - r.nextInt(3);
                while (left > 0) {
                    int g = Math.min(left, 1 + r.nextInt(4));
                    world.running("j" + n++, "acct" + r.nextInt(6), g, r.nextBoolean() ? 0 : HOUR, T0, world.node(i));
                    left -= g;
                }
            }
            world.cs.preemptible.advanceTo(world.cs, T0 + 2 * HOUR);
            VictimSearch search = new VictimSearch(world.cs, T0 + 2 * HOUR, 0, placedThisPass);
            // and a preemptor allowed some accounts' allocated work and some accounts' unallocated work
            long[] allocated = {r.nextInt(64)};
            long[] unallocated = {r.nextInt(64)};
            java.util.function.Predicate<Job> allowed = v -> ((v.unallocated() ? unallocated : allocated)[0]
                    >>> v.accountId() & 1) != 0;
            VictimSearch.NodeMask where = search.nodesHosting(allocated, unallocated);
            pruned += 24 - Long.bitCount(where.withAllocated()[0]);
            for (int replicas = 1; replicas <= 3; replicas++) {
                for (int gpus : new int[] {1, 3, 6, 8}) {
                    // when it searches with and without the nodes of those accounts
                    VictimSearch.Selection everywhere = search.select(replicas, gpus, Node::available, allowed, true);
                    VictimSearch.Selection there = search.select(replicas, gpus, Node::available, allowed, true, where);
                    // then both choose the same victims and nodes
                    assertThat(there == null ? null : ids(there.victims()))
                            .as("seed %d, %d x %d", seed, replicas, gpus)
                            .isEqualTo(everywhere == null ? null : ids(everywhere.victims()));
                    assertThat(there == null ? null : there.nodes()).isEqualTo(everywhere == null ? null : everywhere.nodes());
                    found += everywhere == null ? 0 : 1;
                }
            }
        }
        // (the worlds exercise both: nodes left out and searches that succeed)
        assertThat(pruned).isPositive();
        assertThat(found).isPositive();
    }
}
