package dev.allot.budget.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.budget.tree.Violation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request body read field by field, so every refusal names the field at fault. NaN and Infinity
 * literals are read (and then refused by the rules, naming the field) rather than failing the parse.
 */
public final class JsonBody {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private final ObjectNode node;

    private JsonBody(ObjectNode node) {
        this.node = node;
    }

    public static JsonBody parse(String text) {
        if (text == null || text.isBlank()) {
            throw bad("body", "a JSON object is required");
        }
        if (text.length() > RequestGuard.MAX_BODY) {
            // a body sent without Content-Length (chunked) passes the RequestGuard; refused here, still unwritten
            throw new ApiException(new Violation(413, "body", "the body is " + text.length() + " characters; at most "
                    + RequestGuard.MAX_BODY));
        }
        JsonNode parsed;
        try {
            parsed = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw bad("body", "malformed JSON: " + e.getOriginalMessage());
        }
        if (!(parsed instanceof ObjectNode object)) {
            throw bad("body", "a JSON object is required");
        }
        return new JsonBody(object);
    }

    /** The field is in the body, even as null. */
    public boolean present(String field) {
        return node.has(field);
    }

    public boolean has(String field) {
        return node.has(field) && !node.get(field).isNull();
    }

    public String text(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw bad(field, field + " must be a string");
        }
        return value.asText();
    }

    public String requiredText(String field) {
        String value = text(field);
        if (value == null || value.isBlank()) {
            throw bad(field, field + " is required");
        }
        return value;
    }

    /** A number, NaN and infinities included; null when absent. */
    public Double number(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw bad(field, field + " must be a number");
        }
        return value.doubleValue();
    }

    /** A whole number in [min, max]; null when absent. */
    public Long whole(String field, long min, long max) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() && !(value.isNumber() && value.doubleValue() == Math.rint(value.doubleValue()))) {
            throw bad(field, field + " must be a whole number");
        }
        double d = value.doubleValue();
        if (Double.isNaN(d) || d < min || d > max) {
            throw bad(field, field + " must be between " + min + " and " + max + ", got " + value.asText());
        }
        return value.asLong();
    }

    public long requiredWhole(String field, long min, long max) {
        Long value = whole(field, min, max);
        if (value == null) {
            throw bad(field, field + " is required (a whole number between " + min + " and " + max + ")");
        }
        return value;
    }

    public Boolean bool(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isBoolean()) {
            throw bad(field, field + " must be true or false");
        }
        return value.booleanValue();
    }

    public List<String> strings(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isArray()) {
            throw bad(field, field + " must be an array of strings");
        }
        List<String> items = new ArrayList<>();
        for (JsonNode item : value) {
            if (!item.isTextual()) {
                throw bad(field, field + " must be an array of strings");
            }
            items.add(item.asText());
        }
        return items;
    }

    public Map<String, String> stringMap(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw bad(field, field + " must be an object of string values");
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : value.properties()) {
            if (!entry.getValue().isTextual()) {
                throw bad(field, field + "." + entry.getKey() + " must be a string");
            }
            map.put(entry.getKey(), entry.getValue().asText());
        }
        return map;
    }

    static ApiException bad(String field, String message) {
        return new ApiException(Violation.badRequest(field, message));
    }
}
