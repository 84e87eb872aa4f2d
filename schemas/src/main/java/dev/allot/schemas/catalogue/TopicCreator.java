package dev.allot.schemas.catalogue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics from the catalogue, idempotently. Also the main class behind {@code bin/allot infra up}. */
public final class TopicCreator {

    private TopicCreator() {
    }

    public static void createTopics(Admin admin, List<? extends Topic<?, ?>> topics, short replicationFactor) {
        List<NewTopic> newTopics = new ArrayList<>();
        for (Topic<?, ?> topic : topics) {
            newTopics.add(new NewTopic(topic.name(), topic.partitions(), replicationFactor).configs(topic.configs()));
        }
        admin.createTopics(newTopics).values().forEach((name, future) -> {
            try {
                future.get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("could not create topic " + name, e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    /** {@code TopicCreator BOOTSTRAP}: creates every catalogue topic on a single-broker cluster. */
    public static void main(String[] args) {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            createTopics(admin, Topics.ALL, (short) 1);
        }
        Topics.ALL.forEach(t -> System.out.printf("%-16s partitions=%d cleanup=%s key=%s value=%s%n", t.name(),
                t.partitions(), t.cleanupPolicy().kafkaName(), t.keyMeaning(), t.valueType().getSimpleName()));
    }
}
