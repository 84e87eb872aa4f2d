package dev.allot.schemas.evolution;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaIncompatibilityType;
import org.apache.avro.specific.SpecificData;

/**
 * Guards schema evolution: the current value schema of every catalogue topic must be able to read
 * data written with every released version of it (BACKWARD compatibility, checked transitively).
 *
 * <p>Released versions live on the classpath under {@code released/<topic>/v<N>.avsc}, self-contained
 * (all named types inlined). {@link SchemaRelease} writes a new version when a change is released.
 */
public final class SchemaEvolutionGuard {

    /** Released versions are numbered from 1 without gaps; this bounds the lookup. */
    static final int MAX_VERSIONS = 1000;

    private SchemaEvolutionGuard() {
    }

    /** The schema a topic's producers write today. */
    public static Schema currentSchema(Topic<?, ?> topic) {
        return SpecificData.get().getSchema(topic.valueType());
    }

    /** All released versions of a topic's value schema, oldest first. */
    public static List<Schema> releasedSchemas(String topicName) {
        List<Schema> released = new ArrayList<>();
        for (int version = 1; version <= MAX_VERSIONS; version++) {
            Optional<String> text = readResource(resourcePath(topicName, version));
            if (text.isEmpty()) {
                break;
            }
            released.add(new Schema.Parser().parse(text.get()));
        }
        return released;
    }

    static String resourcePath(String topicName, int version) {
        return "released/" + topicName + "/v" + version + ".avsc";
    }

    /**
     * Why {@code reader} cannot read data written with {@code writer}; empty when it can.
     * Each line names the record type, the location in it and the kind of break.
     *
     * <p>Avro reports a changed record inside a union only as a missing union branch, so the guard
     * also compares every named record of the writer with the reader's record of the same name and
     * reports what actually broke there (a field without default, a type change...).
     */
    public static List<String> backwardIncompatibilities(Schema reader, Schema writer) {
        if (isCompatible(reader, writer)) {
            return List.of();
        }
        Map<String, Schema> readerRecords = namedRecords(reader);
        List<String> problems = new ArrayList<>();
        for (Schema writerRecord : namedRecords(writer).values()) {
            Schema readerRecord = readerRecords.get(writerRecord.getFullName());
            if (readerRecord == null) {
                problems.add("MISSING_RECORD " + writerRecord.getName()
                        + ": events of this type were released and can no longer be read");
                continue;
            }
            var result = SchemaCompatibility.checkReaderWriterCompatibility(readerRecord, writerRecord).getResult();
            for (Incompatibility incompatibility : result.getIncompatibilities()) {
                if (incompatibility.getType() == SchemaIncompatibilityType.MISSING_UNION_BRANCH
                        && !isDirectUnionLoss(readerRecord, writerRecord, incompatibility)) {
                    continue; // reported where the nested record itself breaks
                }
                problems.add(incompatibility.getType() + " in " + writerRecord.getName() + " at "
                        + fieldPath(readerRecord, incompatibility.getLocation()) + ": " + incompatibility.getMessage());
            }
        }
        if (problems.isEmpty()) {
            var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult();
            result.getIncompatibilities().forEach(i -> problems.add(i.getType() + " at " + i.getLocation()
                    + ": " + i.getMessage()));
        }
        return problems;
    }

    /** Turns Avro's {@code /fields/2/type} into {@code exitCode (/fields/2/type)} for people. */
    static String fieldPath(Schema record, String location) {
        Matcher m = FIELD_INDEX.matcher(location);
        if (m.find()) {
            int index = Integer.parseInt(m.group(1));
            if (index < record.getFields().size()) {
                return record.getFields().get(index).name() + " (" + location + ")";
            }
        }
        return location;
    }

    private static final Pattern FIELD_INDEX = Pattern.compile("^/fields/(\\d+)");

    private static boolean isCompatible(Schema reader, Schema writer) {
        return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
                == SchemaCompatibilityType.COMPATIBLE;
    }

    /**
     * True when a union of this very record lost a branch (rather than a nested record having changed):
     * some writer branch has no reader branch of the same name.
     */
    private static boolean isDirectUnionLoss(Schema readerRecord, Schema writerRecord, Incompatibility incompatibility) {
        for (Schema.Field writerField : writerRecord.getFields()) {
            Schema.Field readerField = readerRecord.getField(writerField.name());
            if (readerField == null || writerField.schema().getType() != Schema.Type.UNION
                    || readerField.schema().getType() != Schema.Type.UNION) {
                continue;
            }
            for (Schema branch : writerField.schema().getTypes()) {
                boolean present = readerField.schema().getTypes().stream()
                        .anyMatch(r -> r.getType() == branch.getType()
                                && (r.getName() == null || r.getFullName().equals(branch.getFullName())));
                if (!present) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Map<String, Schema> namedRecords(Schema root) {
        Map<String, Schema> records = new LinkedHashMap<>();
        Deque<Schema> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            Schema schema = todo.pop();
            switch (schema.getType()) {
                case RECORD -> {
                    if (records.putIfAbsent(schema.getFullName(), schema) == null) {
                        schema.getFields().forEach(f -> todo.add(f.schema()));
                    }
                }
                case UNION -> todo.addAll(schema.getTypes());
                case ARRAY -> todo.add(schema.getElementType());
                case MAP -> todo.add(schema.getValueType());
                default -> { }
            }
        }
        return records;
    }

    /** Checks every catalogue topic; returns one line per problem, empty when all is well. */
    public static List<String> checkCatalogue() {
        List<String> problems = new ArrayList<>();
        for (Topic<String, ?> topic : Topics.ALL) {
            List<Schema> released = releasedSchemas(topic.name());
            if (released.isEmpty()) {
                problems.add(topic.name() + ": no released schema version (run SchemaRelease)");
                continue;
            }
            Schema current = currentSchema(topic);
            for (int i = 0; i < released.size(); i++) {
                for (String problem : backwardIncompatibilities(current, released.get(i))) {
                    problems.add(topic.name() + " v" + (i + 1) + ": " + problem);
                }
            }
        }
        return problems;
    }

    private static Optional<String> readResource(String path) {
        try (InputStream in = SchemaEvolutionGuard.class.getClassLoader().getResourceAsStream(path)) {
            return in == null ? Optional.empty() : Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
