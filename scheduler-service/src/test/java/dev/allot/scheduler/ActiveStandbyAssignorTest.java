package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The election of the active scheduler by the group's assignment (no broker: the assignor is a pure function). */
class ActiveStandbyAssignorTest {

    static final List<String> TOPICS = List.of("budgets", "job-events", "job-requests");
    static final Node BROKER = new Node(0, "localhost", 9092);
    /** budgets: 1 partition, job-events and job-requests: 3 each. */
    static final Cluster CLUSTER = new Cluster("c", List.of(BROKER), List.of(
            partition("budgets", 0), partition("job-events", 0), partition("job-events", 1), partition("job-events", 2),
            partition("job-requests", 0), partition("job-requests", 1), partition("job-requests", 2)),
            Set.of(), Set.of());

    static PartitionInfo partition(String topic, int p) {
        return new PartitionInfo(topic, p, BROKER, new Node[] {BROKER}, new Node[] {BROKER});
    }

    static List<TopicPartition> all() {
        List<TopicPartition> all = new ArrayList<>();
        for (PartitionInfo p : CLUSTER.partitionsForTopic("budgets")) {
            all.add(new TopicPartition(p.topic(), p.partition()));
        }
        for (String t : List.of("job-events", "job-requests")) {
            for (int p = 0; p < 3; p++) {
                all.add(new TopicPartition(t, p));
            }
        }
        return all;
    }

    static Subscription member(List<TopicPartition> owned, int generation) {
        return new Subscription(TOPICS, null, owned, generation, Optional.empty());
    }

    static Map<String, List<TopicPartition>> assign(Map<String, Subscription> members) {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        new ActiveStandbyAssignor().assign(CLUSTER, new GroupSubscription(members)).groupAssignment()
                .forEach((m, a) -> out.put(m, a.partitions()));
        return out;
    }

    @Test
    void given_two_new_members_then_the_first_by_id_gets_every_partition_and_the_other_none() {
        Map<String, List<TopicPartition>> a = assign(Map.of("m-b", member(List.of(), -1), "m-a", member(List.of(), -1)));
        assertThat(a.get("m-a")).containsExactlyInAnyOrderElementsOf(all());
        assertThat(a.get("m-b")).isEmpty();
    }

    @Test
    void given_an_active_member_when_a_standby_with_a_smaller_id_joins_then_the_active_keeps_everything() {
        Map<String, List<TopicPartition>> a = assign(Map.of("m-z", member(all(), 3), "m-a", member(List.of(), -1)));
        assertThat(a.get("m-z")).containsExactlyInAnyOrderElementsOf(all());
        assertThat(a.get("m-a")).isEmpty();
    }

    @Test
    void given_the_active_member_gone_then_the_standby_gets_everything() {
        Map<String, List<TopicPartition>> a = assign(Map.of("m-z", member(List.of(), 4)));
        assertThat(a.get("m-z")).containsExactlyInAnyOrderElementsOf(all());
    }

    @Test
    void given_a_zombie_still_claiming_its_old_partitions_then_the_claim_of_the_newer_generation_wins() {
        Map<String, List<TopicPartition>> a = assign(Map.of("m-a", member(all(), 2), "m-b", member(all(), 5)));
        assertThat(a.get("m-b")).containsExactlyInAnyOrderElementsOf(all());
        assertThat(a.get("m-a")).isEmpty();
    }
}
