package dev.allot.testsupport.deploy;

import static dev.allot.testsupport.deploy.Rendered.app;
import static dev.allot.testsupport.deploy.Rendered.id;
import static dev.allot.testsupport.deploy.Rendered.podSpec;
import static dev.allot.testsupport.deploy.Rendered.workloads;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.testsupport.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every configuration key a manifest gives a service (its env, and the keys of the ConfigMaps it takes
 * with envFrom) is a key the service declares in its application.properties, as a property or as a
 * documented optional key ({@code # key=...}). MicroProfile Config maps an environment variable to a
 * key by upper-casing it and turning every character other than a letter or digit into '_', so
 * QUARKUS_HTTP_PORT is quarkus.http.port. A misspelt variable would otherwise be ignored in silence.
 */
class ManifestConfigKeysTest {

    /** Variables that are not configuration: the pod's own facts, only used in $(VAR) references. */
    private static final Set<String> POD_FACTS = Set.of("POD_IP", "NODE_NAME");

    private static final Pattern KEY = Pattern.compile("^#?\\s*(?:%[\\w-]+\\.)?([A-Za-z][\\w.\\-\"]*)\\s*=");

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyKeyAManifestSetsExistsInTheServicesApplicationProperties(String overlay) {
        List<JsonNode> objects = Rendered.objects(overlay);
        List<String> unknown = new ArrayList<>();
        for (JsonNode w : workloads(objects)) {
            Set<String> declared = envNames(declaredKeys(app(w)));
            JsonNode container = podSpec(w).path("containers").get(0);
            List<String> given = new ArrayList<>();
            container.path("env").forEach(e -> given.add(e.path("name").asText()));
            for (JsonNode from : container.path("envFrom")) {
                String map = from.path("configMapRef").path("name").asText();
                Rendered.ofKind(objects, "ConfigMap").stream().filter(c -> Rendered.name(c).equals(map))
                        .forEach(c -> c.path("data").fieldNames().forEachRemaining(given::add));
            }
            for (String name : given) {
                if (!POD_FACTS.contains(name) && !declared.contains(name)) {
                    unknown.add(id(w) + ": " + name);
                }
            }
        }
        assertThat(unknown).as("keys the services do not declare").isEmpty();
    }

    @Test
    void givenAMisspeltKey_thenItIsNotDeclared() {
        Set<String> agent = envNames(declaredKeys("node-agent"));
        assertThat(agent).contains("ALLOT_AGENT_CLUSTER", "ALLOT_AGENT_FAKE_NODES", "QUARKUS_HTTP_PORT");
        assertThat(agent).doesNotContain("ALLOT_AGENT_CLUSTERS", "ALLOT_SCHEDULER_CLUSTER");
        assertThat(envNames(declaredKeys("accounting-service"))).contains("KAFKA_STREAMS_STATE_DIR",
                "KAFKA_STREAMS_NUM_STANDBY_REPLICAS", "ALLOT_ACCOUNTING_ADVERTISED_HOST");
    }

    /** The keys in a module's application.properties (any profile), including documented commented ones. */
    static Set<String> declaredKeys(String module) {
        Path file = RepositoryRoot.get().resolve(module).resolve("src/main/resources/application.properties");
        Set<String> keys = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(file)) {
                Matcher m = KEY.matcher(line.strip());
                if (m.find()) {
                    keys.add(m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return keys;
    }

    static Set<String> envNames(Set<String> keys) {
        Set<String> names = new TreeSet<>();
        keys.forEach(k -> names.add(k.replaceAll("[^A-Za-z0-9]", "_").toUpperCase()));
        return names;
    }

}
