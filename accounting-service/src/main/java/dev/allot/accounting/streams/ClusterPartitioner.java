package dev.allot.accounting.streams;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions {@code cluster/account} keys by the cluster only, so that every account of a cluster
 * lives in one task: roll-up through the tree then needs no second shuffle. Interactive queries use
 * the same partitioner to find the owner.
 */
public final class ClusterPartitioner<V> implements StreamPartitioner<String, V> {

    public static String clusterOf(String accountKey) {
        int slash = accountKey.indexOf('/');
        return slash < 0 ? accountKey : accountKey.substring(0, slash);
    }

    public static int partition(String cluster, int numPartitions) {
        return Utils.toPositive(Utils.murmur2(cluster.getBytes(StandardCharsets.UTF_8))) % numPartitions;
    }

    @Override
    public Optional<Set<Integer>> partitions(String topic, String key, V value, int numPartitions) {
        return Optional.of(Set.of(partition(clusterOf(key), numPartitions)));
    }
}
