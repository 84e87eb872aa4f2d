package dev.allot.accounting.streams;

import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.catalogue.DeadLetters;
import java.time.Instant;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Feeds the global budgets store (raw bytes, decoded by {@link BudgetReader}) with the budget records that read,
 * and dead-letters those that do not ({@code malformed: ...}, as the intake of the other inputs does), so that
 * garbage on {@code budgets} neither enters the tree nor is decoded again at every publication (an unknown schema
 * id would cost a registry request each time). A record that cannot be judged yet (the registry does not answer) is
 * stored as it is: the tree is read through {@link BudgetReader}, which waits for the registry.
 *
 * <p>A global store has no output topic and no transaction: its dead letters go through a
 * {@link BudgetDeadLetters} producer of their own, once per record (Kafka Streams runs this processor again over
 * the records after the store's checkpoint when it restores the store, and over all of them on a fresh state
 * directory: those already in {@code dead-letters} are not sent again).
 */
final class BudgetIntake implements Processor<String, byte[], Void, Void> {

    private final Deserializer<BudgetEvent> deserializer;
    private final BudgetDeadLetters deadLetters;
    private final AccountingListener listener;
    private ProcessorContext<Void, Void> context;
    private TimestampedKeyValueStore<String, byte[]> store;

    BudgetIntake(Deserializer<BudgetEvent> deserializer, BudgetDeadLetters deadLetters, AccountingListener listener) {
        this.deserializer = deserializer;
        this.deadLetters = deadLetters;
        this.listener = listener;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(AccountingTopology.BUDGETS_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) {
            return; // the compacted topic refuses keyless records; nothing to index it under
        }
        if (record.value() == null) {
            store.delete(record.key()); // a tombstone removes the account
            return;
        }
        RecordMetadata meta = context.recordMetadata().orElseThrow();
        try {
            deserializer.deserialize(meta.topic(), record.value());
        } catch (RegistryUnavailable notYet) {
            // not the record's fault: kept, and judged when the tree is read (BudgetReader waits for the registry)
        } catch (RuntimeException malformed) { // InvalidRecord from the edge's reader; whatever a plain decoder throws
            listener.deadLettered(meta.topic(), "malformed");
            deadLetters.send(DeadLetters.of(meta.topic(), meta.partition(), meta.offset(),
                    record.key().getBytes(java.nio.charset.StandardCharsets.UTF_8), record.value(),
                    "malformed: " + DeadLetters.reasonOf(malformed), IntakeProcessor.CONSUMER,
                    Instant.ofEpochMilli(context.currentSystemTimeMs())));
            return; // the account keeps what it had
        }
        store.put(record.key(), ValueAndTimestamp.make(record.value(), record.timestamp()));
    }
}
