package dev.allot.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Reads schemas back through the registry's Confluent-compatible API, the way a Confluent client
 * would: {@code GET /schemas/ids/{id}}, then every schema reference (nested records registered as
 * subjects of their own) through {@code GET /subjects/{subject}/versions/{version}}, recursively.
 */
public final class ConfluentCompatClient {

    private final String baseUrl;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    /** @param baseUrl e.g. {@code http://127.0.0.1:8080/apis/ccompat/v7} */
    public ConfluentCompatClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** The raw JSON answer of {@code /schemas/ids/{id}}. */
    public JsonNode schemaDocument(int id) {
        return get("/schemas/ids/" + id);
    }

    /** The Avro schema with that id, with its references resolved. */
    public Schema schemaById(int id) {
        JsonNode document = schemaDocument(id);
        Schema.Parser parser = new Schema.Parser();
        parseReferences(document.path("references"), parser, new LinkedHashSet<>());
        return parser.parse(document.get("schema").asText());
    }

    private void parseReferences(JsonNode references, Schema.Parser parser, Set<String> seen) {
        for (JsonNode reference : references) {
            String subject = reference.get("subject").asText();
            String version = reference.get("version").asText();
            if (!seen.add(subject + "@" + version)) {
                continue;
            }
            JsonNode document = get("/subjects/" + subject + "/versions/" + version);
            // Dependencies first, so the parser knows every named type it meets.
            parseReferences(document.path("references"), parser, seen);
            if (!parser.getTypes().containsKey(reference.get("name").asText())) {
                parser.parse(document.get("schema").asText());
            }
        }
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": "
                        + response.body());
            }
            return json.readTree(response.body());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
