package dev.allot.schemas.catalogue;

import io.apicurio.registry.serde.avro.DefaultAvroDatumProvider;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Apicurio's datum provider with its writers looked up by the schema object itself. The default provider keys
 * its writer cache by the schema's parsing fingerprint and computes that fingerprint for every record written
 * (the schema's canonical form built as a string, then hashed): for our union-heavy events that was the larger
 * part of serialising one (a node agent's profile: 77 of 164 samples in the serializer). A generated record's
 * schema is one object for the life of the JVM, so one identity lookup finds its writer; a schema object not
 * seen before falls back to the default provider (which still shares writers between equal schemas).
 *
 * <p>Bounded: a producer of generic records with a new schema object per record would otherwise grow it; past
 * {@link #MAX_WRITERS} the map starts again.
 */
public final class WriterCache<T> extends DefaultAvroDatumProvider<T> {

    static final int MAX_WRITERS = 1_000;

    private final Map<Schema, DatumWriter<T>> specific = new IdentityHashMap<>();
    private final Map<Schema, DatumWriter<T>> generic = new IdentityHashMap<>();

    @Override
    public DatumWriter<T> createDatumWriter(T data, Schema schema) {
        Map<Schema, DatumWriter<T>> writers = data instanceof SpecificRecord ? specific : generic;
        synchronized (writers) {
            DatumWriter<T> known = writers.get(schema);
            if (known != null) {
                return known;
            }
        }
        DatumWriter<T> made = super.createDatumWriter(data, schema);
        synchronized (writers) {
            if (writers.size() >= MAX_WRITERS) {
                writers.clear();
            }
            writers.put(schema, made);
        }
        return made;
    }

    /** Writers held now (for tests). */
    int size() {
        synchronized (specific) {
            synchronized (generic) {
                return specific.size() + generic.size();
            }
        }
    }
}
