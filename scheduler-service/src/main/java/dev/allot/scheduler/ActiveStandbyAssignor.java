package dev.allot.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * The election of a cluster's active scheduler: every input partition goes to ONE member of the cluster's
 * consumer group, the others get nothing (standbys). The member that already holds partitions keeps all of
 * them (so a standby joining, or leaving, never moves the active role); only when no live member holds any,
 * because the active one left or missed its session, does the first member by id get them all.
 *
 * <p>Cooperative: partitions are never taken from a live holder, so no rebalance revokes anything from the
 * active instance and it keeps scheduling while standbys come and go. Two members claiming partitions (a
 * zombie that was dropped from the group and rejoined before it noticed) are told apart by the generation
 * their claim comes from: the newer one keeps them.
 */
public final class ActiveStandbyAssignor implements ConsumerPartitionAssignor {

    public static final String NAME = "allot-active-standby";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> members = groupSubscription.groupSubscription();
        String active = active(members);
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : new TreeSet<>(members.values().stream().flatMap(s -> s.topics().stream()).toList())) {
            List<PartitionInfo> partitions = metadata.partitionsForTopic(topic);
            if (partitions != null) {
                partitions.forEach(p -> all.add(new TopicPartition(topic, p.partition())));
            }
        }
        Map<String, Assignment> assignments = new HashMap<>();
        members.keySet().forEach(m -> assignments.put(m, new Assignment(m.equals(active) ? all : List.of())));
        return new GroupAssignment(assignments);
    }

    /** The member holding partitions (the newest generation's claim first), else the first by member id. */
    static String active(Map<String, Subscription> members) {
        String holder = null;
        int holderGeneration = Integer.MIN_VALUE;
        for (String member : new TreeSet<>(members.keySet())) {
            Subscription s = members.get(member);
            if (s.ownedPartitions().isEmpty()) {
                continue;
            }
            int generation = s.generationId().orElse(-1);
            if (holder == null || generation > holderGeneration) {
                holder = member;
                holderGeneration = generation;
            }
        }
        return holder != null ? holder : new TreeSet<>(members.keySet()).first();
    }
}
