package dev.allot.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.jboss.logging.Logger;

/**
 * The journal and the rebuild from it (README, "Recovery"). Each step of the loop writes one
 * {@link JournalEntry} (the inputs it applied, in order, and whether it ran a pass) to the private
 * topic {@code scheduler-journal-<cluster>} in the same transaction as its outputs and input offsets.
 * On start the committed entries are replayed into a fresh {@link Projection}: the core is
 * deterministic, so it takes the same decisions again (discarded this time: they are in the log).
 */
final class Recovery {

    private static final Logger LOG = Logger.getLogger(Recovery.class);

    /** The projection the journal rebuilt, and what the rebuild cost. */
    record Rebuilt(Projection projection, long entries, long millis) {
    }

    private final Settings settings;
    private final SchedulerClients clients;

    Recovery(Settings settings, SchedulerClients clients) {
        this.settings = settings;
        this.clients = clients;
    }

    /** The journal topic (delete, retention -1, one partition, 16 MiB records), created if missing. */
    void ensureJournal() {
        String topic = settings.journalTopic();
        try (Admin admin = clients.admin()) {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                return;
            }
            NewTopic journal = new NewTopic(topic, Optional.of(1), Optional.empty()).configs(Map.of(
                    "cleanup.policy", "delete", "retention.ms", "-1",
                    "max.message.bytes", String.valueOf(SchedulerClients.MAX_RECORD_BYTES)));
            admin.createTopics(List.of(journal)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the journal topic " + topic, e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("broker unreachable at " + settings.bootstrapServers(), e);
        }
    }

    /** The record that journals one step, to be sent in the step's transaction. */
    ProducerRecord<String, byte[]> journalRecord(JournalEntry entry) {
        return new ProducerRecord<>(settings.journalTopic(), settings.cluster(), entry.toBytes());
    }

    /**
     * Replays the committed journal (read_committed, up to its last stable offset) into a fresh
     * projection. Liveness is not journaled: every known node gets a fresh grace period from now.
     */
    Rebuilt rebuild() {
        long began = System.nanoTime();
        Projection projection = new Projection(settings);
        long entries = 0;
        try (KafkaConsumer<byte[], byte[]> journal = clients.journalConsumer()) {
            TopicPartition tp = new TopicPartition(settings.journalTopic(), 0);
            journal.assign(List.of(tp));
            journal.seekToBeginning(List.of(tp));
            long end = journal.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            List<Output> discarded = new ArrayList<>();
            while (journal.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> record : journal.poll(Duration.ofMillis(200))) {
                    replay(projection, JournalEntry.fromBytes(record.value()), discarded);
                    discarded.clear();
                    entries++;
                }
            }
        }
        projection.heardAllAt(System.currentTimeMillis());
        long millis = (System.nanoTime() - began) / 1_000_000;
        LOG.infof("cluster %s: replayed %d journal entries in %d ms (%d jobs running, %d waiting, %d nodes)",
                settings.cluster(), entries, millis, projection.runningCount(), projection.waitingCount(),
                projection.nodeCount());
        return new Rebuilt(projection, entries, millis);
    }

    /** One entry: its inputs in order, then its pass; what they decide goes to {@code discarded}. */
    static void replay(Projection projection, JournalEntry entry, List<Output> discarded) {
        for (Input input : entry.inputs()) {
            projection.apply(input, discarded);
        }
        if (entry.pass()) {
            try {
                projection.pass(entry.now(), discarded);
            } catch (RuntimeException e) {
                LOG.error("scheduling pass failed during replay", e);
            }
        }
        if (LOG.isDebugEnabled()) {
            Output.logDecisions(LOG, "replayed", entry.now(), discarded);
        }
    }
}
