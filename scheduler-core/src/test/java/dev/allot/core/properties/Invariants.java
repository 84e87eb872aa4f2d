package dev.allot.core.properties;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.ChargeMode;
import dev.allot.core.Decision;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.NodeView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.Scheduler;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A shadow of the cluster rebuilt only from decisions and the events the driver applied, checked
 * against the core after every pass.
 */
final class Invariants {
    private final Scheduler s;
    private final double margin;
    private final long noThrash;
    /** When account A last displaced a job of account B, by "A\0B". */
    private final Map<String, Long> lastDisplaced = new HashMap<>();
    /** The nodes of each job's latest reservation. */
    private final Map<String, List<String>> reservedNodes = new HashMap<>();
    /** Preemptions across accounts checked for cycles, and the cycles found (asserted zero when the guard is on). */
    int cyclesChecked;
    int cycles;
    private final long cycleWindow;
    /** "node#epoch#gpu" to job id, rebuilt from decisions. */
    private final Map<String, String> gpuOwner = new HashMap<>();
    private final Map<String, List<ReplicaPlacement>> placed = new HashMap<>();
    private final Map<String, Long> protectedUntil = new HashMap<>();
    private final Map<String, ChargeMode> mode = new HashMap<>();

    Invariants(Scheduler s) {
        this.s = s;
        this.margin = s.config().preemptionMargin();
        this.noThrash = s.config().goodput().noThrashMillis();
        this.cycleWindow = noThrash > 0 ? noThrash : 60 * 60_000L;
    }

    /** The driver released a job itself (finish, cancel, node lost). */
    void released(String jobId) {
        List<ReplicaPlacement> p = placed.remove(jobId);
        if (p != null) {
            for (ReplicaPlacement r : p) {
                for (int g : r.gpuIndices()) {
                    gpuOwner.remove(r.nodeId() + "#" + r.nodeEpoch() + "#" + g);
                }
            }
        }
    }

    void afterPass(long now, List<Decision> decisions) {
        Set<String> victims = new HashSet<>();
        Map<String, List<String>> allocatedVictimsBy = new HashMap<>();
        for (Decision d : decisions) {
            switch (d) {
                case Decision.Place p -> {
                    JobView j = s.job(p.jobId()).orElseThrow();
                    // a gang is placed whole, one replica per distinct node, G GPUs each
                    assertThat(p.replicas()).hasSize(j.request().replicas());
                    assertThat(p.replicas()).extracting(ReplicaPlacement::nodeId).doesNotHaveDuplicates();
                    assertThat(p.replicas()).allSatisfy(
                            r -> assertThat(r.gpuIndices()).hasSize(j.request().gpusPerReplica()).doesNotHaveDuplicates());
                    assertThat(placed).doesNotContainKey(p.jobId());
                    for (ReplicaPlacement r : p.replicas()) {
                        NodeView n = s.node(r.nodeId()).orElseThrow();
                        assertThat(n.draining()).as("no placement on a draining node").isFalse();
                        assertThat(n.lost()).isFalse();
                        assertThat(n.unreachable()).as("no placement on an unreachable node").isFalse();
                        for (int g : r.gpuIndices()) {
                            assertThat(g).isBetween(0, n.spec().gpus() - 1);
                            String key = r.nodeId() + "#" + r.nodeEpoch() + "#" + g;
                            // no GPU held by two jobs
                            assertThat(gpuOwner.put(key, p.jobId())).as("GPU %s already held", key).isNull();
                        }
                    }
                    placed.put(p.jobId(), p.replicas());
                    protectedUntil.put(p.jobId(), p.protectedUntilMillis());
                    mode.put(p.jobId(), p.chargeMode());
                }
                case Decision.Preempt p -> {
                    assertThat(placed).containsKey(p.jobId());
                    // a protected job is never preempted
                    if (mode.get(p.jobId()) == ChargeMode.ALLOCATED) {
                        assertThat(protectedUntil.get(p.jobId())).as("protected window of " + p.jobId())
                                .isLessThanOrEqualTo(now);
                        assertThat(p.account()).isNotEqualTo(p.preemptorAccount());
                        if (p.reason().contains("holds the reservation")) {
                            // the reservation right: only on a node reserved for the preemptor
                            assertThat(reservedNodes.getOrDefault(p.preemptorJobId(), List.of()))
                                    .as("%s displaced by right of a reservation it does not hold", p.jobId())
                                    .containsAnyElementsOf(victimNodes.getOrDefault(p.jobId(), Set.of()));
                        } else {
                            // never in favour of a job whose account ranks equal or worse
                            assertThat(p.victimRatio()).isGreaterThanOrEqualTo(p.preemptorRatio() + margin);
                            assertRanksBelow(p.preemptorAccount(), p.account(), p.victimRatio(), p.preemptorRatio());
                        }
                        allocatedVictimsBy.computeIfAbsent(p.preemptorJobId(), k -> new java.util.ArrayList<>())
                                .add(p.jobId());
                    }
                    assertThat(s.job(p.preemptorJobId()).orElseThrow().chargeMode()).isEqualTo(ChargeMode.ALLOCATED);
                    // no preemption cycle: B's jobs never displace A's within the window after A displaced B's
                    Long reverse = lastDisplaced.get(p.account() + "\0" + p.preemptorAccount());
                    if (reverse != null && now - reverse <= cycleWindow) {
                        cycles++;
                        if (noThrash > 0) {
                            assertThat(now - reverse).as("%s displaced %s's job %s %d ms after the reverse",
                                    p.preemptorAccount(), p.account(), p.jobId(), now - reverse).isGreaterThan(noThrash);
                        }
                    }
                    if (!p.account().equals(p.preemptorAccount())) {
                        lastDisplaced.put(p.preemptorAccount() + "\0" + p.account(), now);
                        cyclesChecked++;
                    }
                    victims.add(p.jobId());
                    released(p.jobId());
                }
                case Decision.ReleaseForDrain r -> {
                    if (mode.get(r.jobId()) == ChargeMode.ALLOCATED) {
                        assertThat(protectedUntil.get(r.jobId())).isLessThanOrEqualTo(now);
                    }
                    released(r.jobId());
                }
                case Decision.Requeue r -> released(r.jobId());
                case Decision.Reject r -> assertThat(placed).doesNotContainKey(r.jobId());
                case Decision.NodeDrained n -> assertThat(s.node(n.nodeId()).orElseThrow().jobIds()).isEmpty();
                case Decision.Reserve r -> {
                    assertThat(r.nodeIds()).isNotEmpty();
                    reservedNodes.put(r.jobId(), r.nodeIds());
                }
            }
        }
        // unallocated before allocated: on a node where a preemptor took allocated victims for its
        // replica, no unallocated job that was there before the pass survived
        for (Map.Entry<String, List<String>> e : allocatedVictimsBy.entrySet()) {
            List<ReplicaPlacement> mine = placed.get(e.getKey());
            assertThat(mine).isNotNull();
            for (ReplicaPlacement r : mine) {
                boolean allocatedVictimHere = false;
                for (String v : e.getValue()) {
                    // the victim's GPUs were on this node if the preemptor now holds some of them
                    // only single-node victims: a displaced gang also frees GPUs on nodes it was not chosen for
                    allocatedVictimHere |= wasOn(v, r.nodeId()) && victimNodes.get(v).size() == 1;
                }
                if (allocatedVictimHere) {
                    String preemptorAccount = s.job(e.getKey()).orElseThrow().account();
                    for (String u : unallocatedBefore.getOrDefault(r.nodeId(), Set.of())) {
                        if (barredByTheGuard(s.job(u).orElseThrow().account(), preemptorAccount, now)) {
                            continue; // its account displaced the preemptor's within the window: no cycle
                        }
                        assertThat(victims).as("unallocated %s survived on %s while allocated work was displaced: %s",
                                u, r.nodeId(), decisions).contains(u);
                    }
                }
            }
        }
        checkState(now);
    }

    private final Map<String, Set<String>> unallocatedBefore = new HashMap<>();

    /** Whether the no-thrash guard bars {@code preemptor}'s jobs from {@code victim}'s at {@code now}. */
    private boolean barredByTheGuard(String victim, String preemptor, long now) {
        Long reverse = lastDisplaced.get(victim + "\0" + preemptor);
        return noThrash > 0 && !victim.equals(preemptor) && reverse != null && now - reverse <= noThrash;
    }

    private boolean wasOn(String victim, String nodeId) {
        Set<String> nodes = victimNodes.get(victim);
        return nodes != null && nodes.contains(nodeId);
    }

    private final Map<String, Set<String>> victimNodes = new HashMap<>();

    /** Remember where every running job is, so victim nodes are known when the preemption comes. */
    void beforePass() {
        unallocatedBefore.clear();
        for (NodeView n : s.nodes()) {
            Set<String> u = new HashSet<>();
            for (String id : n.jobIds()) {
                if (placed.containsKey(id) && mode.get(id) == ChargeMode.UNALLOCATED) {
                    u.add(id);
                }
            }
            unallocatedBefore.put(n.nodeId(), u);
        }
        victimNodes.clear();
        for (Map.Entry<String, List<ReplicaPlacement>> e : placed.entrySet()) {
            Set<String> n = new HashSet<>();
            for (ReplicaPlacement r : e.getValue()) {
                n.add(r.nodeId());
            }
            victimNodes.put(e.getKey(), n);
        }
    }

    private void assertRanksBelow(String preemptor, String victim, double vr, double pr) {
        List<String> p = s.budgets().path(preemptor);
        List<String> v = s.budgets().path(victim);
        if (v.isEmpty()) {
            return; // victim's budget was removed: ranks last
        }
        int i = 0;
        while (i < p.size() && i < v.size() && p.get(i).equals(v.get(i))) {
            i++;
        }
        assertThat(i).as("%s and %s must diverge in the tree", preemptor, victim).isLessThan(Math.min(p.size(), v.size()));
    }

    /** Every job is exactly one of waiting, running, finished, rejected, and the core agrees with the shadow. */
    private void checkState(long now) {
        Map<String, String> coreOwner = new HashMap<>();
        Set<Integer> positions = new HashSet<>();
        for (JobView j : s.jobs()) {
            switch (j.state()) {
                case RUNNING -> {
                    assertThat(j.placement()).isNotEmpty();
                    assertThat(placed.get(j.jobId())).as("shadow placement of " + j.jobId()).isEqualTo(j.placement());
                    for (ReplicaPlacement r : j.placement()) {
                        for (int g : r.gpuIndices()) {
                            assertThat(coreOwner.put(r.nodeId() + "#" + g, j.jobId())).isNull();
                        }
                        NodeView n = s.node(r.nodeId()).orElseThrow();
                        assertThat(n.jobIds()).contains(j.jobId());
                    }
                }
                case WAITING -> {
                    var why = s.explainWaiting(j.jobId());
                    assertThat(why).as("explanation of waiting job " + j.jobId()).isPresent();
                    if (why.get().position() > 0) {
                        assertThat(positions.add(why.get().position())).as("unique position").isTrue();
                        assertThat(why.get().reason()).isNotBlank();
                    }
                    assertThat(j.placement()).isEmpty();
                    assertThat(placed).doesNotContainKey(j.jobId());
                    assertThat(s.waiting(j.cluster()).stream().filter(w -> w.jobId().equals(j.jobId())).count())
                            .isEqualTo(1);
                }
                case FINISHED, REJECTED -> {
                    assertThat(j.placement()).isEmpty();
                    assertThat(placed).doesNotContainKey(j.jobId());
                }
            }
        }
        for (NodeView n : s.nodes()) {
            int held = 0;
            for (String id : n.jobIds()) {
                JobView j = s.job(id).orElseThrow();
                assertThat(j.state()).isEqualTo(JobState.RUNNING);
                held += j.request().gpusPerReplica();
                // a draining node keeps only work its contract still protects
                if (n.draining()) {
                    assertThat(j.chargeMode()).isEqualTo(ChargeMode.ALLOCATED);
                    assertThat(j.protectedUntilMillis()).isGreaterThan(now);
                }
            }
            assertThat(n.freeGpus()).isEqualTo(n.spec().gpus() - held);
        }
    }
}
