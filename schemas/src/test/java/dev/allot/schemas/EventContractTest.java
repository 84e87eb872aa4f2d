package dev.allot.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.schemas.evolution.SchemaEvolutionGuard;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The contract's conventions hold for every schema reachable from the catalogue. */
class EventContractTest {

    @Test
    void everyFieldOfEveryEventIsDocumented() {
        for (Schema record : allRecords()) {
            assertThat(record.getDoc()).as("doc of record %s", record.getFullName()).isNotBlank();
            for (Schema.Field field : record.getFields()) {
                assertThat(field.doc()).as("doc of %s.%s", record.getName(), field.name()).isNotBlank();
            }
        }
    }

    @Test
    void timestampsAreTimestampMillis() {
        for (Schema record : allRecords()) {
            for (Schema.Field field : record.getFields()) {
                String name = field.name();
                boolean looksLikeATime = name.endsWith("At") || name.endsWith("Until")
                        || name.equals("intervalStart") || name.equals("intervalEnd")
                        || name.equals("windowStart") || name.equals("windowEnd");
                if (looksLikeATime) {
                    Schema type = nonNull(field.schema());
                    assertThat(type.getLogicalType()).as("%s.%s", record.getName(), name)
                            .isEqualTo(LogicalTypes.timestampMillis());
                }
            }
        }
    }

    @Test
    void idsAreStrings() {
        for (Schema record : allRecords()) {
            for (Schema.Field field : record.getFields()) {
                if (field.name().endsWith("Id") && !field.name().equals("nodeEpoch")) {
                    assertThat(nonNull(field.schema()).getType()).as("%s.%s", record.getName(), field.name())
                            .isEqualTo(Schema.Type.STRING);
                }
            }
        }
    }

    @Test
    void theBriefsEventsAreAllInTheContract() {
        Set<String> names = new HashSet<>();
        allRecords().forEach(record -> names.add(record.getName()));
        assertThat(names).contains("BudgetDefined", "BudgetRemoved", "JobSubmitted", "JobCancelRequested",
                "JobAccepted", "JobRejected", "JobPlaced", "JobStarted", "JobExited", "JobCheckpointed",
                "JobPreempted", "JobRequeued", "JobCompleted", "JobFailed", "JobCancelled", "JobLost", "StartJob", "StopJob",
                "NodeRegistered", "NodeHeartbeat", "NodeDrainRequested", "NodeDrained", "NodeUndrained",
                "UsageReported", "AccountDemand", "BudgetUsage");
    }

    @Test
    void topicNamesAreUnique() {
        assertThat(Topics.ALL).extracting(Topic::name).doesNotHaveDuplicates();
    }

    private static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        return schema.getTypes().stream().filter(s -> s.getType() != Schema.Type.NULL).findFirst().orElseThrow();
    }

    private static Set<Schema> allRecords() {
        Set<Schema> seen = new HashSet<>();
        Deque<Schema> todo = new ArrayDeque<>();
        Topics.ALL.forEach(topic -> todo.add(SchemaEvolutionGuard.currentSchema(topic)));
        Set<Schema> records = new HashSet<>();
        while (!todo.isEmpty()) {
            Schema schema = todo.pop();
            if (!seen.add(schema)) {
                continue;
            }
            switch (schema.getType()) {
                case RECORD -> {
                    records.add(schema);
                    schema.getFields().forEach(f -> todo.add(f.schema()));
                }
                case UNION -> todo.addAll(schema.getTypes());
                case ARRAY -> todo.add(schema.getElementType());
                case MAP -> todo.add(schema.getValueType());
                default -> { }
            }
        }
        return records;
    }
}
