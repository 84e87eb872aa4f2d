package dev.allot.scheduler;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;

/**
 * Reads the Confluent wire format (magic byte 0, 4-byte content id, Avro binary) into the class the
 * topic is supposed to carry, resolving the writer's schema through the registry (cached by id).
 *
 * <p>Why not the Apicurio deserialiser: it resolves record classes through Avro's global
 * {@code SpecificData}, which under Quarkus' test class loaders finds them in the wrong loader;
 * here classes are resolved in this module's loader, and a record written with another schema
 * than the topic's is named as such (a schema-invalid record) instead of surfacing as a cast error.
 */
final class AvroDecoder {

    /** Thrown for anything that is not a valid record of the expected type. */
    static final class InvalidBytes extends RuntimeException {
        InvalidBytes(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String registryApi;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<Integer, Schema> writers = new ConcurrentHashMap<>();
    private final SpecificData model;

    AvroDecoder(String registryUrl) {
        String base = registryUrl.endsWith("/") ? registryUrl.substring(0, registryUrl.length() - 1) : registryUrl;
        int apis = base.indexOf("/apis/");
        this.registryApi = (apis >= 0 ? base.substring(0, apis) : base) + "/apis/registry/v3";
        this.model = new SpecificData(AvroDecoder.class.getClassLoader());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    }

    <T extends SpecificRecord> T decode(byte[] bytes, Class<T> type, Schema readerSchema) {
        if (bytes == null || bytes.length < 5) {
            throw new InvalidBytes("not in the wire format: " + (bytes == null ? 0 : bytes.length) + " bytes", null);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        byte magic = buffer.get();
        if (magic != 0) {
            throw new InvalidBytes("not in the wire format: magic byte " + magic + ", expected 0", null);
        }
        int id = buffer.getInt();
        Schema writer = writers.computeIfAbsent(id, this::fetch);
        if (!writer.getFullName().equals(readerSchema.getFullName())) {
            throw new InvalidBytes("schema-invalid: written as " + writer.getFullName() + " (content id " + id
                    + "), expected " + readerSchema.getFullName(), null);
        }
        try {
            SpecificDatumReader<T> reader = new SpecificDatumReader<>(writer, readerSchema, model);
            Object value = reader.read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
            return type.cast(value);
        } catch (IOException | RuntimeException e) {
            throw new InvalidBytes("schema-invalid: cannot read the bytes as " + readerSchema.getFullName() + ": "
                    + e, e);
        }
    }

    private Schema fetch(int contentId) {
        try {
            Schema.Parser parser = new Schema.Parser();
            // Nested records may be registered as references: parse those first, depth first.
            // (asked first: a 404 there already means the id is unknown, the record's fault, not the registry's)
            for (String reference : referencedContents(registryApi + "/ids/contentIds/" + contentId + "/references",
                    new java.util.HashSet<>(), contentId)) {
                parser.parse(reference);
            }
            return parser.parse(get(registryApi + "/ids/contentIds/" + contentId, contentId));
        } catch (IOException e) {
            throw new IllegalStateException("registry unreachable at " + registryApi, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (org.apache.avro.AvroRuntimeException e) {
            throw new InvalidBytes("content id " + contentId + " is not a usable Avro schema: " + e.getMessage(), e);
        }
    }

    /** @param contentId the record's content id when {@code referencesUrl} is that id's, else -1 */
    private java.util.List<String> referencedContents(String referencesUrl, java.util.Set<String> seen, int contentId)
            throws IOException, InterruptedException {
        java.util.List<String> texts = new java.util.ArrayList<>();
        com.fasterxml.jackson.databind.JsonNode refs = JSON.readTree(get(referencesUrl, contentId));
        for (com.fasterxml.jackson.databind.JsonNode ref : refs) {
            String group = ref.path("groupId").isTextual() ? ref.path("groupId").asText() : "default";
            String version = registryApi + "/groups/" + enc(group) + "/artifacts/" + enc(ref.path("artifactId").asText())
                    + "/versions/" + enc(ref.path("version").asText());
            if (!seen.add(version)) {
                continue;
            }
            texts.addAll(referencedContents(version + "/references", seen, -1));
            texts.add(get(version + "/content", -1));
        }
        return texts;
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private String get(String url, int contentId) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404 && contentId >= 0) {
            throw new InvalidBytes("unknown schema content id " + contentId, null);
        }
        if (response.statusCode() != 200) {
            // Not the record's fault: let the loop fail and retry rather than dead-letter it.
            throw new IllegalStateException("registry answered " + response.statusCode() + " for " + url);
        }
        return response.body();
    }
}
