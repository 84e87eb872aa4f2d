package dev.allot.core.placement;

import static dev.allot.core.state.ClusterBuilder.HOUR;
import static dev.allot.core.state.ClusterBuilder.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.JobRequest;
import dev.allot.core.cluster.Node;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterBuilder;
import dev.allot.core.state.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Placement in free GPUs, asked of {@link GangFit} directly. */
class GangFitTest {
    private final ClusterBuilder given = new ClusterBuilder();

    private static List<String> ids(List<Node> nodes) {
        return nodes == null ? null : nodes.stream().map(Node::nodeId).toList();
    }

    @Test
    void givenNodesWithDifferentFreeGpus_whenFitting_thenTheFullestNodeThatHoldsItIsChosen() {
        // given nodes with 8, 2 and 4 GPUs free
        given.nodes(3, 8);
        given.running("r2", "x", 6, HOUR, T0, given.node(2));
        given.running("r3", "x", 4, HOUR, T0, given.node(3));
        Job j = given.waiting("j", "a", 1, 2, HOUR, T0);
        // when a 1 x 2 job fits
        List<Node> fit = GangFit.fitFree(given.pass(T0), j, null);
        // then best fit: the node with the fewest free GPUs that still holds it
        assertThat(ids(fit)).containsExactly("c1-n002");
    }

    @Test
    void givenAGangLargerThanTheOpenNodes_whenFitting_thenItDoesNotFit() {
        // given two 8-GPU nodes, one with 4 free
        given.nodes(2, 8);
        given.running("r1", "x", 4, HOUR, T0, given.node(1));
        Job j = given.waiting("j", "a", 2, 8, HOUR, T0);
        // when a 2 x 8 gang asks
        List<Node> fit = GangFit.fitFree(given.pass(T0), j, null);
        // then it does not fit: a gang starts whole or not at all
        assertThat(fit).isNull();
    }

    @Test
    void givenItsOwnReservation_whenFitting_thenItsReservedNodeComesFirst() {
        // given three empty nodes, the third reserved for the job
        given.nodes(3, 8);
        Job j = given.waiting("j", "a", 1, 8, HOUR, T0);
        Reservation own = new Reservation("j", "c1", List.of("c1-n003"), T0);
        given.cs.reservations.add(own);
        // when it fits
        List<Node> fit = GangFit.fitFree(given.pass(T0), j, own);
        // then it takes its reserved node, not an open one
        assertThat(ids(fit)).containsExactly("c1-n003");
    }

    @Test
    void givenANodeReservedForAnother_whenFitting_thenOnlyAJobOutOfTheWayInTimeBackfillsIt() {
        // given the only node is reserved for a blocked job, due in one hour
        given.nodes(1, 8);
        given.waiting("holder", "h", 2, 8, HOUR, T0);
        given.cs.reservations.add(new Reservation("holder", "c1", List.of("c1-n001"), T0 + HOUR));
        Job endsInTime = given.waiting(new JobRequest("short", "a", "c1", 1, 4, HOUR, true, 0, T0, 30 * 60_000L));
        Job unknownEnd = given.waiting(new JobRequest("long", "b", "c1", 1, 4, 2 * HOUR, true, 0, T0, -1));
        // when each asks for 4 GPUs
        List<Node> forShort = GangFit.fitFree(given.pass(T0), endsInTime, null);
        List<Node> forLong = GangFit.fitFree(given.pass(T0), unknownEnd, null);
        // then the one expected to end before the due time backfills; the one protected past it does not
        assertThat(ids(forShort)).containsExactly("c1-n001");
        assertThat(forLong).isNull();
    }
}
