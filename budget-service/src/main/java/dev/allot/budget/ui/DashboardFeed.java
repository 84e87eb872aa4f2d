package dev.allot.budget.ui;

import dev.allot.budget.kafka.KafkaSettings;
import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.edge.Redelivery;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Feeds the dashboard's own projections ({@link Timeline}, {@link NodeLog}, {@link DemandHours}) from
 * job-events, node-status and account-demand, on a consumer of its own (from the beginning, no group),
 * so the pages need nothing from the API's projection but what it already answers. A record it cannot
 * read is skipped and logged, not dead-lettered: the topics' owners (this service's projector, the
 * scheduler, the accounting-service) dead-letter it already.
 */
@ApplicationScoped
public class DashboardFeed {

    private static final Logger LOG = Logger.getLogger(DashboardFeed.class);

    @Inject
    KafkaSettings settings;

    @ConfigProperty(name = "allot.ui.lost-after", defaultValue = "30s")
    Duration lostAfter;

    private final Timeline timeline = new Timeline();
    private final DemandHours demand = new DemandHours();
    private volatile NodeLog nodes;
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    // accessors, not fields: callers hold the CDI client proxy, whose own fields are not the bean's
    Timeline timeline() {
        return timeline;
    }

    DemandHours demand() {
        return demand;
    }

    NodeLog nodes() {
        return nodes;
    }

    void start(@Observes StartupEvent event) {
        nodes = new NodeLog(lostAfter.toMillis());
        EventReader reader = settings.clients().reader();
        thread = new Thread(() -> run(reader), "budget-dashboard-feed");
        thread.setDaemon(true);
        thread.start();
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    private void run(EventReader reader) {
        while (running) {
            try (KafkaConsumer<byte[], byte[]> c = settings.clients().consumer(settings.consumerName() + "-dashboard",
                    Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100))) {
                consumer = c;
                if (!assignFromStart(c)) {
                    pause(Duration.ofSeconds(1));
                    continue;
                }
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        try {
                            apply(reader, record);
                        } catch (RegistryUnavailable e) {
                            Redelivery.seekBack(c, records, record);
                            pause(Duration.ofSeconds(1));
                            break;
                        }
                    }
                }
                return;
            } catch (WakeupException e) {
                return;
            } catch (RuntimeException e) {
                LOG.errorf(e, "dashboard feed failed; starting over from the beginning");
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private boolean assignFromStart(KafkaConsumer<byte[], byte[]> c) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(Topics.JOB_EVENTS.name(), Topics.NODE_STATUS.name(), Topics.ACCOUNT_DEMAND.name())) {
            List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos == null || infos.isEmpty()) {
                return false;
            }
            infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
        }
        c.assign(partitions);
        c.seekToBeginning(partitions);
        return true;
    }

    private void apply(EventReader reader, ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return;
        }
        try {
            if (record.topic().equals(Topics.JOB_EVENTS.name())) {
                timeline.event(reader.read(Topics.JOB_EVENTS, record.value()));
            } else if (record.topic().equals(Topics.NODE_STATUS.name())) {
                nodes.status(reader.read(Topics.NODE_STATUS, record.value()));
            } else {
                demand.demand(reader.read(Topics.ACCOUNT_DEMAND, record.value()));
            }
        } catch (InvalidRecord e) {
            LOG.debugf("dashboard skips %s-%d@%d: %s", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis()); // back-off before reading again, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
