package dev.allot.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * The writer schemas of records, by the content id in their header, from Apicurio Registry's v3 API;
 * each id is asked once (content ids are immutable). Nested records registered as schema references
 * are fetched and parsed first, depth first.
 *
 * <p>A 404 for the id is the record's fault ({@link InvalidRecord}: no such schema, now or later worth
 * waiting for); anything else that is not a 200 ({@link RegistryUnavailable}) is the registry's.
 * Failures are not cached: the next record with that id asks again.
 */
final class WriterSchemas {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final String api;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
    private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

    WriterSchemas(String registryUrl) {
        this.api = apiUrl(registryUrl);
    }

    /** Accepts the registry's base URL ({@code http://host:port}) or any of its API URLs. */
    static String apiUrl(String registryUrl) {
        String base = registryUrl.endsWith("/") ? registryUrl.substring(0, registryUrl.length() - 1) : registryUrl;
        int apis = base.indexOf("/apis/");
        return (apis >= 0 ? base.substring(0, apis) : base) + "/apis/registry/v3";
    }

    Schema byId(int contentId) {
        Schema known = byId.get(contentId);
        return known != null ? known : byId.computeIfAbsent(contentId, this::fetch);
    }

    private Schema fetch(int contentId) {
        try {
            Schema.Parser parser = new Schema.Parser();
            // Asked first: a 404 here already means the id is unknown (the record's fault).
            for (String reference : references(api + "/ids/contentIds/" + contentId + "/references", new HashSet<>(),
                    contentId)) {
                parser.parse(reference);
            }
            return parser.parse(get(api + "/ids/contentIds/" + contentId, contentId));
        } catch (IOException e) {
            throw new RegistryUnavailable("registry unreachable at " + api + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryUnavailable("interrupted while asking the registry at " + api, e);
        } catch (AvroRuntimeException e) {
            throw new InvalidRecord("content id " + contentId + " is not a usable Avro schema: " + e.getMessage(), e);
        }
    }

    /** @param contentId the record's content id when {@code url} lists that id's references, else -1 */
    private List<String> references(String url, Set<String> seen, int contentId)
            throws IOException, InterruptedException {
        List<String> texts = new ArrayList<>();
        for (JsonNode ref : JSON.readTree(get(url, contentId))) {
            String group = ref.path("groupId").isTextual() ? ref.path("groupId").asText() : "default";
            String version = api + "/groups/" + encode(group) + "/artifacts/" + encode(ref.path("artifactId").asText())
                    + "/versions/" + encode(ref.path("version").asText());
            if (seen.add(version)) {
                texts.addAll(references(version + "/references", seen, -1));
                texts.add(get(version + "/content", -1));
            }
        }
        return texts;
    }

    private String get(String url, int contentId) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404 && contentId >= 0) {
            throw new InvalidRecord("unknown schema content id " + contentId);
        }
        if (response.statusCode() != 200) {
            throw new RegistryUnavailable("registry answered " + response.statusCode() + " for " + url, null);
        }
        return response.body();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
