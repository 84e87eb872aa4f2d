package dev.allot.scheduler;

import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topics;
import java.util.List;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;

/**
 * The one place where input bytes are read: bytes of an input topic → the topic's typed event →
 * {@link Input}s ({@link RecordMapper}), or the reason the record is a dead letter. A registry that
 * does not answer is not the record's fault: that error propagates and the loop retries from the log.
 */
final class InputReader {

    /** What one record means: inputs to apply, or a dead letter. */
    sealed interface Read {
        record Inputs(List<Input> inputs) implements Read {
        }

        record DeadLetter(String reason) implements Read {
        }
    }

    private final AvroDecoder decoder;
    private final RecordMapper mapper;

    InputReader(String registryUrl, String cluster) {
        this.decoder = new AvroDecoder(registryUrl);
        this.mapper = new RecordMapper(cluster);
    }

    Read read(String topic, byte[] bytes, long now, Predicate<String> knowsJob) {
        SpecificRecord event;
        try {
            event = decode(topic, bytes);
        } catch (AvroDecoder.InvalidBytes e) {
            return new Read.DeadLetter("cannot deserialise: " + DeadLetters.reasonOf(e));
        }
        try {
            return new Read.Inputs(mapper.map(event, now, knowsJob));
        } catch (RecordMapper.InvalidRecord e) {
            return new Read.DeadLetter(e.getMessage());
        } catch (RuntimeException e) {
            return new Read.DeadLetter("cannot map: " + DeadLetters.reasonOf(e));
        }
    }

    private SpecificRecord decode(String topic, byte[] bytes) {
        if (topic.equals(Topics.JOB_REQUESTS.name())) {
            return decoder.decode(bytes, JobRequest.class, JobRequest.getClassSchema());
        }
        if (topic.equals(Topics.BUDGETS.name())) {
            return decoder.decode(bytes, BudgetEvent.class, BudgetEvent.getClassSchema());
        }
        if (topic.equals(Topics.NODE_STATUS.name())) {
            return decoder.decode(bytes, NodeStatus.class, NodeStatus.getClassSchema());
        }
        if (topic.equals(Topics.BUDGET_USAGE.name())) {
            return decoder.decode(bytes, BudgetUsage.class, BudgetUsage.getClassSchema());
        }
        if (topic.equals(Topics.JOB_EVENTS.name())) {
            return decoder.decode(bytes, JobEvent.class, JobEvent.getClassSchema());
        }
        throw new IllegalStateException("not an input topic: " + topic);
    }
}
