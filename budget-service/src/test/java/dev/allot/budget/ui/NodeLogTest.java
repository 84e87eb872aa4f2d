package dev.allot.budget.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the timeline marks on a node's rows: drains and silences longer than lost-after. */
class NodeLogTest {

    static final long T0 = 1_800_000_000_000L;
    final NodeLog log = new NodeLog(30_000);

    @Test
    void givenHeartbeatsWithAGap_whenRowsAreDrawn_thenTheGapIsALostStretchAndTheNodeIsLiveAgain() {
        status(0, new NodeRegistered("c1", 8, "fake", 1L, "a", null));
        status(10, heartbeat());
        status(70, heartbeat()); // 60 s of silence: lost from 10 to 70
        status(80, heartbeat());

        NodeLog.NodeRow row = log.rows("c1", T0 + 85_000).get(0);
        assertThat(row.gpus()).isEqualTo(8);
        assertThat(row.lost()).isFalse();
        assertThat(row.marks()).containsExactly(new NodeLog.Mark("lost", T0 + 10_000, T0 + 70_000, "no heartbeat for 60 s"));
    }

    @Test
    void givenANodeThatStoppedHeartbeating_whenRowsAreDrawnLater_thenItIsLostUpToNow() {
        status(0, new NodeRegistered("c1", 4, "fake", 1L, "a", null));
        NodeLog.NodeRow row = log.rows("c1", T0 + 45_000).get(0);
        assertThat(row.lost()).isTrue();
        assertThat(row.marks()).singleElement().satisfies(m -> {
            assertThat(m.kind()).isEqualTo("lost");
            assertThat(m.toMillis()).isEqualTo(T0 + 45_000);
        });
        assertThat(log.rows("other", T0 + 45_000)).isEmpty();
    }

    @Test
    void givenADrainThatFinishesAndIsLifted_whenRowsAreDrawn_thenDrainingThenDrainedAreMarkedAndTheNodeIsOpenAgain() {
        status(0, new NodeRegistered("c1", 8, "fake", 1L, "a", null));
        status(5, new NodeDrainRequested("c1", "alice", "MAINT-7"));
        NodeLog.NodeRow draining = log.rows("c1", T0 + 6_000).get(0);
        assertThat(draining.draining()).isTrue();
        assertThat(draining.marks()).extracting(NodeLog.Mark::kind).containsExactly("draining");
        assertThat(draining.marks().get(0).note()).isEqualTo("drain requested by alice: MAINT-7");

        status(15, new NodeDrained("c1"));
        NodeLog.NodeRow drained = log.rows("c1", T0 + 20_000).get(0);
        assertThat(drained.drained()).isTrue();
        assertThat(drained.draining()).isFalse();
        assertThat(drained.marks()).extracting(NodeLog.Mark::kind).containsExactly("draining", "drained");

        status(25, new NodeUndrained("c1", "alice"));
        NodeLog.NodeRow open = log.rows("c1", T0 + 26_000).get(0);
        assertThat(open.drained()).isFalse();
        assertThat(open.draining()).isFalse();
        assertThat(open.marks()).extracting(m -> m.kind() + " " + (m.toMillis() - T0) / 1000)
                .containsExactly("draining 15", "drained 25");
    }

    private void status(long second, Object payload) {
        log.status(new NodeStatus("e" + second + payload.getClass().getSimpleName(), Instant.ofEpochMilli(T0 + second * 1000),
                "n1", payload));
    }

    private static NodeHeartbeat heartbeat() {
        return new NodeHeartbeat("c1", 1L, List.of(), null);
    }
}
