package dev.allot.accounting.streams;

import dev.allot.accounting.book.Fact;
import dev.allot.accounting.book.Intake;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Reads raw bytes of one input topic, deserialises them itself (so garbage becomes a dead letter, not
 * a crashed stream; a registry that does not answer fails the task instead, to be read again), applies the {@link Intake} rules and forwards a {@link Fact} keyed by
 * {@code cluster/account} and stamped with its event time (the interval's end), or a DeadLetter.
 *
 * <p>Lateness is judged here, per input partition: usage or demand whose interval ended more than
 * the grace before the latest interval end seen on the same partition is too late. (Judged here
 * rather than after the shuffle, where partitions caught up at different speeds interleave.)
 */
final class IntakeProcessor<V> implements Processor<byte[], byte[], String, Object> {

    static final String CONSUMER = "accounting-service";

    private final Deserializer<V> deserializer;
    private final BiFunction<V, Intake.Source, Intake.Result> rule;
    private final AccountingListener listener;
    private final long graceMillis;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Long> clockStore;
    /** topic/partition -> latest interval end seen (the partition's event time), cached from the store. */
    private final Map<String, Long> clocks = new HashMap<>();

    IntakeProcessor(Deserializer<V> deserializer, BiFunction<V, Intake.Source, Intake.Result> rule,
                    AccountingListener listener, long graceMillis) {
        this.deserializer = deserializer;
        this.rule = rule;
        this.listener = listener;
        this.graceMillis = graceMillis;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.clockStore = context.getStateStore(AccountingTopology.CLOCK_STORE);
        clocks.clear();
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata meta = context.recordMetadata().orElseThrow();
        Intake.Source source = new Intake.Source(meta.topic(), meta.partition(), meta.offset(), record.key(),
                record.value());
        Intake.Result result;
        try {
            if (record.value() == null) {
                throw new IllegalArgumentException("null value");
            }
            V value = deserializer.deserialize(meta.topic(), record.headers(), record.value());
            result = rule.apply(value, source);
        } catch (RegistryUnavailable retry) {
            throw retry; // not the record's fault: the task fails and its thread reads it again (RegistryRetry)
        } catch (RuntimeException malformed) {
            deadLetter(record, source, "malformed: " + DeadLetters.reasonOf(malformed), "malformed");
            return;
        }
        if (result.rejected()) {
            deadLetter(record, source, result.rejection(), "invalid");
        } else if (!result.ignored()) {
            Fact f = result.fact();
            if (f.kind() != Fact.Kind.NODE) {
                String clockKey = source.topic() + "/" + source.partition();
                Long clock = clocks.computeIfAbsent(clockKey, k -> {
                    Long stored = clockStore.get(k);
                    return stored == null ? Long.MIN_VALUE : stored;
                });
                if (clock != Long.MIN_VALUE && f.end() < clock - graceMillis) {
                    deadLetter(record, source, "too late: interval ended at " + Instant.ofEpochMilli(f.end())
                            + ", partition event time " + Instant.ofEpochMilli(clock) + ", grace "
                            + Duration.ofMillis(graceMillis), "too-late");
                    return;
                }
                if (f.end() > clock) {
                    clocks.put(clockKey, f.end());
                    clockStore.put(clockKey, f.end());
                } else if (f.end() < clock) {
                    listener.lateWithinGrace(f);
                }
            }
            long eventTime = f.kind() == Fact.Kind.NODE ? f.start() : f.end();
            context.forward(new Record<>(Topics.accountKey(f.cluster(), f.account()), (Object) f, eventTime,
                    record.headers()));
        }
    }

    private void deadLetter(Record<byte[], byte[]> record, Intake.Source source, String reason, String kind) {
        listener.deadLettered(source.topic(), kind);
        context.forward(new Record<>(source.topic(), (Object) DeadLetters.of(source.topic(), source.partition(),
                source.offset(), source.key(), source.value(), reason, CONSUMER,
                Instant.ofEpochMilli(context.currentSystemTimeMs())), record.timestamp()));
    }
}
