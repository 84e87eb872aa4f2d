package dev.allot.budget;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;

/** Turns Avro event records into plain maps for JSON answers: instants as ISO-8601, enums as names. */
public final class AvroJson {

    private AvroJson() {
    }

    public static Map<String, Object> toMap(IndexedRecord record) {
        Map<String, Object> map = new LinkedHashMap<>();
        if (record == null) {
            return map;
        }
        for (Schema.Field field : record.getSchema().getFields()) {
            map.put(field.name(), toJson(record.get(field.pos())));
        }
        return map;
    }

    public static Object toJson(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof IndexedRecord record) {
            return toMap(record);
        }
        if (value instanceof CharSequence text) {
            return text.toString();
        }
        if (value instanceof Instant instant) {
            return instant.toString();
        }
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        if (value instanceof GenericEnumSymbol<?> symbol) {
            return symbol.toString();
        }
        if (value instanceof ByteBuffer bytes) {
            ByteBuffer copy = bytes.duplicate();
            byte[] raw = new byte[copy.remaining()];
            copy.get(raw);
            return Base64.getEncoder().encodeToString(raw);
        }
        if (value instanceof Map<?, ?> entries) {
            Map<String, Object> map = new LinkedHashMap<>();
            entries.forEach((k, v) -> map.put(String.valueOf(k), toJson(v)));
            return map;
        }
        if (value instanceof Collection<?> items) {
            ArrayList<Object> list = new ArrayList<>(items.size());
            items.forEach(item -> list.add(toJson(item)));
            return list;
        }
        return value;
    }
}
