package dev.allot.schemas.evolution;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;

/**
 * Releases the current value schemas: for each catalogue topic whose schema differs from its latest
 * released version, writes the next {@code v<N>.avsc} under the given directory (the module's
 * {@code src/main/resources/released}). Refuses to release a BACKWARD incompatible change.
 *
 * <p>Run with {@code bin/allot schemas release}.
 */
public final class SchemaRelease {

    public static void main(String[] args) throws IOException {
        Path releasedDir = Path.of(args.length > 0 ? args[0] : "schemas/src/main/resources/released");
        int written = 0;
        for (Topic<String, ?> topic : Topics.ALL) {
            Schema current = SchemaEvolutionGuard.currentSchema(topic);
            List<Schema> released = SchemaEvolutionGuard.releasedSchemas(topic.name());
            if (!released.isEmpty() && released.get(released.size() - 1).equals(current)) {
                continue;
            }
            for (Schema old : released) {
                List<String> problems = SchemaEvolutionGuard.backwardIncompatibilities(current, old);
                if (!problems.isEmpty()) {
                    System.err.println(topic.name() + ": not released, incompatible with a released version: " + problems);
                    System.exit(1);
                }
            }
            Path file = releasedDir.resolve(topic.name()).resolve("v" + (released.size() + 1) + ".avsc");
            Files.createDirectories(file.getParent());
            Files.writeString(file, current.toString(true) + "\n");
            System.out.println("released " + file);
            written++;
        }
        System.out.println(written == 0 ? "nothing to release" : written + " schema(s) released");
    }
}
