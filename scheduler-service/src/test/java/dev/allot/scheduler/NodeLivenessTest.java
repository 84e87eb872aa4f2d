package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.StopReason;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Heartbeats, lost nodes, agent epochs and stray replicas, without the core or Kafka. */
class NodeLivenessTest {

    static final long LOST_AFTER = 30_000;

    NodeLiveness liveness;

    /** n1 runs j1; j2 was told to stop on n1; nothing else is assigned anywhere. */
    static final NodeLiveness.Replicas REPLICAS = new NodeLiveness.Replicas() {
        @Override
        public boolean assigned(String jobId, String nodeId) {
            return jobId.equals("j1") && nodeId.equals("n1");
        }

        @Override
        public boolean stopping(String jobId, String nodeId) {
            return jobId.equals("j2") && nodeId.equals("n1");
        }
    };

    @BeforeEach
    void given_two_registered_nodes() {
        liveness = new NodeLiveness(LOST_AFTER);
        liveness.registered(new Input.RegisterNode(1_000, "n1", 8, 5), false);
        liveness.registered(new Input.RegisterNode(1_000, "n2", 4, 1), false);
    }

    /** Only losses: the core holds every node unreachable already. */
    private List<Input> lostNodes(long now, java.util.function.Predicate<String> liveInCore) {
        return liveness.silentNodes(now, liveInCore, nodeId -> false);
    }

    @Test
    void given_registrations_when_a_node_registers_again_then_the_epoch_says_whether_its_agent_restarted() {
        NodeLiveness.Registration same = liveness.registered(new Input.RegisterNode(2_000, "n1", 8, 5), true);
        NodeLiveness.Registration restarted = liveness.registered(new Input.RegisterNode(3_000, "n1", 8, 6), true);
        NodeLiveness.Registration returning = liveness.registered(new Input.RegisterNode(4_000, "n2", 4, 1), false);

        assertThat(same).isEqualTo(NodeLiveness.Registration.REPEATED);
        assertThat(restarted).isEqualTo(NodeLiveness.Registration.AGENT_RESTARTED);
        assertThat(returning).isEqualTo(NodeLiveness.Registration.NEW_OR_RETURNING);
        assertThat(liveness.agentEpoch("n1")).isEqualTo(6);
        assertThat(liveness.agentEpoch("unknown")).isZero();
    }

    @Test
    void given_a_node_silent_for_longer_than_lost_after_when_asked_then_it_is_lost_and_the_other_is_not() {
        liveness.heartbeat(new Input.Heartbeat(20_000, "n2", 1, List.of()), false, REPLICAS);

        List<Input> lost = lostNodes(1_000 + LOST_AFTER + 1, nodeId -> true);

        assertThat(lost).containsExactly(new Input.NodeLost(1_000 + LOST_AFTER + 1, "n1"));
    }

    @Test
    void given_a_node_the_core_holds_lost_already_when_asked_then_it_is_not_lost_again() {
        assertThat(lostNodes(1_000 + LOST_AFTER + 1, Set.of("n2")::contains))
                .containsExactly(new Input.NodeLost(1_000 + LOST_AFTER + 1, "n2"));
    }

    @Test
    void given_a_rebuild_when_every_node_is_heard_now_then_each_gets_a_fresh_grace_period() {
        liveness.heardAllAt(100_000);

        assertThat(lostNodes(100_000 + LOST_AFTER, nodeId -> true)).isEmpty();
        assertThat(lostNodes(100_000 + LOST_AFTER + 1, nodeId -> true)).hasSize(2);
    }

    @Test
    void given_a_lost_node_when_it_heartbeats_then_it_registers_afresh_and_every_replica_it_reports_is_fenced() {
        NodeLiveness.Heard heard = liveness.heartbeat(new Input.Heartbeat(50_000, "n1", 3, List.of("j1", "j9")), true,
                REPLICAS);

        // the higher of the two epochs: the agent's own, or the one it registered with
        assertThat(heard.returning()).isEqualTo(new Input.RegisterNode(50_000, "n1", 8, 5));
        assertThat(heard.strays()).containsExactly(
                new NodeLiveness.StrayReplica("j1", "n1", 5, StopReason.FENCED),
                new NodeLiveness.StrayReplica("j9", "n1", 5, StopReason.FENCED));
    }

    @Test
    void given_a_live_node_reporting_replicas_when_it_heartbeats_then_only_the_unassigned_one_is_stopped() {
        NodeLiveness.Heard heard = liveness.heartbeat(
                new Input.Heartbeat(50_000, "n1", 5, List.of("j1", "j2", "j9")), false, REPLICAS);

        assertThat(heard.returning()).isNull();
        assertThat(heard.strays()).containsExactly(new NodeLiveness.StrayReplica("j9", "n1", 5, StopReason.NOT_ASSIGNED));
    }

    @Test
    void given_a_stray_replica_told_to_stop_when_its_node_keeps_reporting_it_then_the_stop_is_repeated_only_after_the_interval() {
        liveness.heartbeat(new Input.Heartbeat(50_000, "n2", 1, List.of("j9")), false, REPLICAS);

        NodeLiveness.Heard soon = liveness.heartbeat(new Input.Heartbeat(50_000
                + NodeLiveness.STRAY_STOP_INTERVAL_MILLIS, "n2", 1, List.of("j9")), false, REPLICAS);
        NodeLiveness.Heard later = liveness.heartbeat(new Input.Heartbeat(50_001
                + NodeLiveness.STRAY_STOP_INTERVAL_MILLIS, "n2", 1, List.of("j9")), false, REPLICAS);

        assertThat(soon.strays()).isEmpty();
        assertThat(later.strays()).singleElement().satisfies(s -> assertThat(s.jobId()).isEqualTo("j9"));
    }

    @Test
    void given_an_unregistered_node_when_it_heartbeats_then_nothing_and_it_is_not_watched() {
        NodeLiveness.Heard heard = liveness.heartbeat(new Input.Heartbeat(50_000, "n7", 1, List.of("j9")), true,
                REPLICAS);

        assertThat(heard).isEqualTo(NodeLiveness.Heard.NOTHING);
        assertThat(liveness.knows("n7")).isFalse();
    }

    @Test
    void given_a_step_during_which_the_instance_did_not_read_then_that_time_is_not_the_nodes_silence() {
        // n1 heard at 1 s, n2 at 1 s; the loop then spends 20 s in one step (a commit on an overloaded broker)
        liveness.heartbeat(new Input.Heartbeat(10_000, "n2", 1, List.of()), false, REPLICAS);

        liveness.notListening(20_000);

        // n1 would be silent for lost-after + 1 ms at 31,001 without the step; the step's 20 s do not count
        assertThat(lostNodes(1_000 + LOST_AFTER + 1, nodeId -> true)).isEmpty();
        assertThat(lostNodes(1_000 + 20_000 + LOST_AFTER + 1, nodeId -> true))
                .extracting(i -> ((Input.NodeLost) i).nodeId()).containsExactly("n1");
        assertThat(lostNodes(10_000 + 20_000 + LOST_AFTER + 1, nodeId -> true)).hasSize(2);
    }

    @Test
    void given_a_node_silent_for_a_third_of_lost_after_when_asked_then_it_is_unreachable_once_and_lost_later() {
        long unreachableAfter = LOST_AFTER / 3;
        liveness.heartbeat(new Input.Heartbeat(1_250, "n2", 1, List.of()), false, REPLICAS);

        List<Input> before = liveness.silentNodes(1_000 + unreachableAfter, nodeId -> true, nodeId -> true);
        List<Input> n1Silent = liveness.silentNodes(1_000 + unreachableAfter + 1, nodeId -> true, nodeId -> true);
        List<Input> n1HeldAlready = liveness.silentNodes(1_000 + unreachableAfter + 1, nodeId -> true,
                nodeId -> !nodeId.equals("n1"));
        List<Input> n1LostN2Unreachable = liveness.silentNodes(1_000 + LOST_AFTER + 1, nodeId -> true,
                nodeId -> true);

        assertThat(before).isEmpty();
        assertThat(n1Silent).containsExactly(new Input.NodeUnreachable(1_000 + unreachableAfter + 1, "n1"));
        assertThat(n1HeldAlready).isEmpty();
        // the agent's two nodes fall silent 250 ms apart: when the first is lost the second takes no work
        assertThat(n1LostN2Unreachable).containsExactly(new Input.NodeLost(1_000 + LOST_AFTER + 1, "n1"),
                new Input.NodeUnreachable(1_000 + LOST_AFTER + 1, "n2"));
    }

    @Test
    void given_registered_nodes_when_shaped_for_submissions_then_count_largest_and_total() {
        assertThat(liveness.shape()).isEqualTo(new SubmissionRules.ClusterShape(2, 8, 12));
    }
}
