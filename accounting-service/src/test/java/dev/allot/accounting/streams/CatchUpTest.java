package dev.allot.accounting.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CatchUpTest {

    private static final TopicPartition USAGE = new TopicPartition("usage", 0);
    private static final TopicPartition FACTS = new TopicPartition("app-facts-repartition", 0);

    /** The log as a test sets it: first offsets, readable ends, the group's commits. */
    private static final class Log implements CatchUp.Offsets {
        final Map<TopicPartition, CatchUp.Span> spans = new HashMap<>();
        final Map<TopicPartition, Long> committed = new HashMap<>();
        RuntimeException down;

        @Override
        public Map<TopicPartition, CatchUp.Span> spans(Collection<TopicPartition> partitions) {
            if (down != null) {
                throw down;
            }
            Map<TopicPartition, CatchUp.Span> asked = new HashMap<>();
            partitions.forEach(p -> asked.put(p, spans.getOrDefault(p, new CatchUp.Span(0, 0))));
            return asked;
        }

        @Override
        public Map<TopicPartition, Long> committed() {
            if (down != null) {
                throw down;
            }
            return Map.copyOf(committed);
        }
    }

    private final Log log = new Log();
    private Optional<Set<TopicPartition>> assigned = Optional.empty();
    private final CatchUp catchUp = new CatchUp(log, () -> assigned);

    @Test
    void givenStreamsNotRunning_whenChecked_thenNotCaughtUp() {
        assertThat(catchUp.check()).isFalse();
        assertThat(catchUp.progress()).isEqualTo("waiting for the streams to run");
    }

    @Test
    void givenABacklog_whenTheSourcesAreReadButNotTheirRepartitionedFacts_thenNotCaughtUpUntilBothAre() {
        log.spans.put(USAGE, new CatchUp.Span(0, 1000));
        log.spans.put(FACTS, new CatchUp.Span(0, 200));
        log.committed.put(USAGE, 400L);
        log.committed.put(FACTS, 200L);
        assigned = Optional.of(Set.of(USAGE, FACTS));

        assertThat(catchUp.check()).isFalse();
        assertThat(catchUp.progress()).startsWith("round 1 of 2: 600 records to read on 1 partitions");

        // usage read to its end at the start (input that came later is not waited for in this round);
        // the facts it made are in the repartition topic, not yet read
        log.spans.put(USAGE, new CatchUp.Span(0, 1100));
        log.committed.put(USAGE, 1000L);
        log.spans.put(FACTS, new CatchUp.Span(0, 1000));
        assertThat(catchUp.check()).isFalse();
        assertThat(catchUp.progress()).startsWith("round 2 of 2: 900 records to read on 2 partitions");

        log.committed.put(USAGE, 1100L);
        log.committed.put(FACTS, 1000L);
        assertThat(catchUp.check()).isTrue();
        assertThat(catchUp.caughtUp()).isTrue();
    }

    @Test
    void givenNothingNewSinceTheLastRun_whenChecked_thenCaughtUpAtOnce() {
        log.spans.put(USAGE, new CatchUp.Span(0, 500));
        log.committed.put(USAGE, 500L);
        assigned = Optional.of(Set.of(USAGE, FACTS)); // FACTS: empty, never committed

        assertThat(catchUp.check()).isTrue();
    }

    @Test
    void givenAPartitionNeverCommitted_whenRecordsRemain_thenBehind_andWhenRetentionTookThemAll_thenRead() {
        log.spans.put(USAGE, new CatchUp.Span(0, 10));
        assigned = Optional.of(Set.of(USAGE));
        assertThat(catchUp.check()).isFalse();

        CatchUp other = new CatchUp(log, () -> assigned);
        log.spans.put(USAGE, new CatchUp.Span(10, 10));
        log.committed.put(USAGE, 3L); // committed before retention deleted the rest
        assertThat(other.check()).isTrue();
    }

    @Test
    void givenTheBrokerAway_whenChecked_thenNotCaughtUpAndSaysWhy_andOnceCaughtUp_itStaysSoWithoutAsking() {
        assigned = Optional.of(Set.of(USAGE));
        log.down = new IllegalStateException("timed out");
        assertThat(catchUp.check()).isFalse();
        assertThat(catchUp.progress()).contains("offsets unknown").contains("timed out");

        log.down = null;
        assertThat(catchUp.check()).isTrue();
        log.down = new IllegalStateException("away again");
        assigned = Optional.empty();
        assertThat(catchUp.check()).isTrue();
        assertThat(catchUp.progress()).isEqualTo("caught up");
    }
}
