package dev.allot.scheduler;

import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * The one place where input bytes are read: bytes of an input topic → the topic's typed event (the
 * edge's {@link EventReader}) → {@link Input}s ({@link RecordMapper}), or the reason the record is a
 * dead letter. A registry that does not answer ({@code RegistryUnavailable}) is not the record's
 * fault: it propagates, and the loop rebuilds and reads the record again.
 */
final class InputReader {

    /** The topics the scheduler reads, budgets first: on a first start facts are read before submissions. */
    static final List<Topic<String, ? extends SpecificRecord>> INPUT_TOPICS = List.of(Topics.BUDGETS,
            Topics.NODE_STATUS, Topics.BUDGET_USAGE, Topics.JOB_EVENTS, Topics.JOB_REQUESTS);

    private static final Map<String, Topic<String, ? extends SpecificRecord>> BY_NAME = INPUT_TOPICS.stream()
            .collect(Collectors.toMap(Topic::name, Function.identity()));

    /** What one record means: inputs to apply, or a dead letter. */
    sealed interface Read {
        record Inputs(List<Input> inputs) implements Read {
        }

        record DeadLetter(String reason) implements Read {
        }
    }

    private final EventReader reader;
    private final RecordMapper mapper;

    InputReader(EventReader reader, String cluster) {
        this.reader = reader;
        this.mapper = new RecordMapper(cluster);
    }

    Read read(String topic, byte[] bytes, long now, Predicate<String> knowsJob) {
        Topic<String, ? extends SpecificRecord> input = BY_NAME.get(topic);
        if (input == null) {
            throw new IllegalStateException("not an input topic: " + topic);
        }
        SpecificRecord event;
        try {
            event = reader.read(input, bytes);
        } catch (InvalidRecord e) {
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
}
