package dev.allot.schemas.catalogue;

import java.util.Map;
import java.util.Objects;

/**
 * One Kafka topic of the event contract: its name, the Java types of its keys and values, how many
 * partitions it has and how it is cleaned up. Keys are plain UTF-8 strings; values are Avro records
 * written in the Confluent wire format through the schema registry.
 *
 * @param name          topic name
 * @param keyType       type of the record key (always {@link String} today)
 * @param valueType     generated Avro class of the record value
 * @param partitions    partition count used when the topic is created
 * @param cleanupPolicy {@code delete} (time-retained log) or {@code compact} (latest value per key)
 * @param keyMeaning    what the key is, for people
 */
public record Topic<K, V>(String name, Class<K> keyType, Class<V> valueType, int partitions,
                          CleanupPolicy cleanupPolicy, String keyMeaning) {

    public enum CleanupPolicy {
        DELETE("delete"), COMPACT("compact");

        private final String kafkaName;

        CleanupPolicy(String kafkaName) {
            this.kafkaName = kafkaName;
        }

        public String kafkaName() {
            return kafkaName;
        }
    }

    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1 for topic " + name);
        }
    }

    /** Topic-level configs to create it with ({@code cleanup.policy}, and retention for the log topics). */
    public Map<String, String> configs() {
        return cleanupPolicy == CleanupPolicy.COMPACT
                ? Map.of("cleanup.policy", "compact")
                // The log is the system of record: keep it (audits replay from the beginning).
                : Map.of("cleanup.policy", "delete", "retention.ms", "-1");
    }
}
