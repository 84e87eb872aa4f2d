package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** When a projection kept from a lost term may go on: only if nobody committed since (offsets and their tag). */
class KeptProjectionTest {

    static final TopicPartition REQUESTS = new TopicPartition("job-requests", 0);
    static final TopicPartition STATUS = new TopicPartition("node-status", 0);
    static final String TERM = "instance-1/3";

    /** The term committed requests@10 and status@40, and had applied status up to 55 (heartbeats since). */
    final KeptProjection kept = new KeptProjection(null, TERM, Map.of(REQUESTS, 10L, STATUS, 40L),
            Map.of(REQUESTS, 10L, STATUS, 55L), 1_000);

    @Test
    void givenTheGroupHoldsWhatTheTermCommitted_thenTheProjectionGoesOn() {
        assertThat(kept.stillTheLog(Map.of(REQUESTS, new OffsetAndMetadata(10, TERM), STATUS,
                new OffsetAndMetadata(40, TERM)))).isTrue();
    }

    @Test
    void givenAnotherTermCommittedTheSameOffsets_thenItIsRebuilt() {
        // another instance was active and wrote decisions without reading anything new: only its tag tells
        assertThat(kept.stillTheLog(Map.of(REQUESTS, new OffsetAndMetadata(10, TERM), STATUS,
                new OffsetAndMetadata(40, "instance-2/1")))).isFalse();
    }

    @Test
    void givenAnOffsetMovedOn_thenItIsRebuilt() {
        assertThat(kept.stillTheLog(Map.of(REQUESTS, new OffsetAndMetadata(12, TERM), STATUS,
                new OffsetAndMetadata(40, TERM)))).isFalse();
    }

    @Test
    void givenTheInputsChanged_thenItIsRebuilt() {
        Map<TopicPartition, OffsetAndMetadata> more = new HashMap<>(Map.of(REQUESTS, new OffsetAndMetadata(10, TERM),
                STATUS, new OffsetAndMetadata(40, TERM)));
        more.put(new TopicPartition("job-requests", 1), null);
        assertThat(kept.stillTheLog(more)).isFalse();
    }

    @Test
    void givenNothingWasEverCommitted_thenTheProjectionGoesOn_butACommitSinceMeansARebuild() {
        Map<TopicPartition, Long> none = new HashMap<>();
        none.put(REQUESTS, null);
        KeptProjection fresh = new KeptProjection(null, TERM, none, Map.of(REQUESTS, 3L), 1_000);
        Map<TopicPartition, OffsetAndMetadata> groupNone = new HashMap<>();
        groupNone.put(REQUESTS, null);

        assertThat(fresh.stillTheLog(groupNone)).isTrue();
        assertThat(fresh.stillTheLog(Map.of(REQUESTS, new OffsetAndMetadata(3, "instance-2/1")))).isFalse();
    }

    @Test
    void theOffsetsATermCommitsAreEveryPositionTaggedWithTheTerm() {
        assertThat(KeptProjection.offsets(Map.of(REQUESTS, 10L, STATUS, 55L), TERM)).containsOnly(
                Map.entry(REQUESTS, new OffsetAndMetadata(10, TERM)), Map.entry(STATUS, new OffsetAndMetadata(55, TERM)));
    }

    @Test
    void afterTheTermsFirstCommit_aCommitCarriesThePositionsThatMoved_andTheOnesNeverCommitted() {
        TopicPartition events = new TopicPartition("job-events", 2);
        Map<TopicPartition, Long> committed = new HashMap<>(Map.of(REQUESTS, 10L, STATUS, 40L));
        committed.put(events, null);

        assertThat(KeptProjection.moved(Map.of(REQUESTS, 10L, STATUS, 41L, events, 0L), committed))
                .containsOnly(Map.entry(STATUS, 41L), Map.entry(events, 0L));
    }
}
