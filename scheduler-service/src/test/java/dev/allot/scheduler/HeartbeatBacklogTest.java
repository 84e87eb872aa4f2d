package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * The check before a loss verdict: node-status read up to the end the broker reports (now, or at a recent previous
 * check), never to the end the consumer last cached.
 */
class HeartbeatBacklogTest {

    static final TopicPartition NODE_STATUS = new TopicPartition(Topics.NODE_STATUS.name(), 0);
    static final TopicPartition REQUESTS = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);

    /** A consumer whose last fetch cached an end of {@code position}: the cache always says "read up". */
    static final class Broker extends MockConsumer<byte[], byte[]> {
        boolean answers = true;
        boolean wokenUp;

        Broker(long position, long end) {
            super("earliest");
            assign(List.of(NODE_STATUS, REQUESTS));
            updateBeginningOffsets(Map.of(NODE_STATUS, 0L, REQUESTS, 0L));
            updateEndOffsets(Map.of(REQUESTS, 500L));
            seek(REQUESTS, 0);
            at(position, end);
        }

        void at(long position, long end) {
            updateEndOffsets(Map.of(NODE_STATUS, end));
            seek(NODE_STATUS, position);
        }

        @Override
        public synchronized OptionalLong currentLag(TopicPartition tp) {
            return OptionalLong.of(0);
        }

        @Override
        public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
            if (wokenUp) {
                throw new WakeupException();
            }
            if (!answers) {
                throw new TimeoutException("no broker");
            }
            return super.endOffsets(partitions, timeout);
        }
    }

    final HeartbeatBacklog backlog = new HeartbeatBacklog(Duration.ofMillis(50), 1_500);

    @Test
    void given_a_backlog_on_the_broker_beyond_the_cached_end_then_it_counts_as_unread() {
        // the last fetch was answered while the backlog was being written: its end is reached long before the real one
        Broker broker = new Broker(12_000, 60_000);

        assertThat(backlog.unread(broker, 10_000)).isEqualTo(48_000);
    }

    @Test
    void given_node_status_read_to_the_brokers_end_then_nothing_is_unread_and_other_topics_do_not_count() {
        Broker broker = new Broker(60_000, 60_000);

        assertThat(backlog.unread(broker, 10_000)).isZero();
    }

    @Test
    void given_heartbeats_landing_all_the_time_when_the_end_of_the_previous_check_is_passed_then_it_is_read_up() {
        Broker broker = new Broker(900, 1_000);
        assertThat(backlog.unread(broker, 10_000)).isEqualTo(100);

        // a tick later: past the end seen then, never at the end now (other nodes' heartbeats keep landing)
        broker.at(1_000, 1_050);
        assertThat(backlog.unread(broker, 11_000)).isZero();
        broker.at(1_060, 1_110);
        assertThat(backlog.unread(broker, 12_000)).isZero();
    }

    @Test
    void given_a_consumer_falling_behind_then_the_previous_end_is_not_reached_and_the_verdict_waits() {
        Broker broker = new Broker(900, 1_000);
        backlog.unread(broker, 10_000);

        broker.at(950, 1_200);
        assertThat(backlog.unread(broker, 11_000)).isEqualTo(50);
    }

    @Test
    void given_the_previous_check_is_old_then_only_the_end_now_counts() {
        Broker broker = new Broker(900, 1_000);
        backlog.unread(broker, 10_000);

        broker.at(1_000, 1_050);
        assertThat(backlog.unread(broker, 12_000)).isEqualTo(50);
    }

    @Test
    void given_a_broker_that_does_not_answer_then_the_backlog_is_unknown_not_empty() {
        Broker broker = new Broker(60_000, 60_000);
        broker.answers = false;

        assertThat(backlog.unread(broker, 10_000)).isEqualTo(HeartbeatBacklog.UNKNOWN);
        // and the check after it has no previous end to lean on
        broker.answers = true;
        broker.at(60_000, 60_010);
        assertThat(backlog.unread(broker, 10_500)).isEqualTo(10);
    }

    @Test
    void given_the_instance_is_woken_up_to_stop_then_the_check_does_not_swallow_it() {
        Broker broker = new Broker(60_000, 60_000);
        broker.wokenUp = true;

        assertThatThrownBy(() -> backlog.unread(broker, 10_000)).isInstanceOf(WakeupException.class);
    }
}
