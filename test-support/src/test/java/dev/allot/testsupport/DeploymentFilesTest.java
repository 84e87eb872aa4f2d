package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.databind.MappingIterator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * compose/ and k8s/ cannot run here (no Docker engine, no cluster), so they are validated as files:
 * they parse, every manifest has its identity, and the ports agree with bin/lib.sh.
 */
class DeploymentFilesTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path ROOT = RepositoryRoot.get();

    @Test
    void composeRunsEveryServiceOnItsLocalPortAfterTheInfrastructure() throws IOException {
        JsonNode compose = YAML.readTree(ROOT.resolve("compose/docker-compose.yml").toFile());
        JsonNode services = compose.path("services");
        assertThat(services.has("kafka")).isTrue();
        assertThat(services.has("registry")).isTrue();
        localPorts().forEach((name, port) -> {
            JsonNode service = services.path(name);
            assertThat(service.isMissingNode()).as(name).isFalse();
            assertThat(service.path("environment").path("QUARKUS_HTTP_PORT").asText()).as(name)
                    .isEqualTo(String.valueOf(port));
            assertThat(service.path("environment").path("KAFKA_BOOTSTRAP_SERVERS").asText()).as(name)
                    .isEqualTo("kafka:9092");
            assertThat(service.path("depends_on").has("kafka")).as(name).isTrue();
        });
    }

    /** The service ports of the local stack, read from bin/lib.sh. */
    private static Map<String, Integer> localPorts() throws IOException {
        String lib = Files.readString(ROOT.resolve("bin/lib.sh"));
        Map<String, Integer> ports = new HashMap<>();
        Map<String, String> names = Map.of("BUDGET", "budget-service", "SCHEDULER", "scheduler-service",
                "ACCOUNTING", "accounting-service", "AGENT", "node-agent");
        Matcher m = Pattern.compile("(\\w+)_PORT=\"\\$\\{ALLOT_\\w+:-(\\d+)}\"").matcher(lib);
        while (m.find()) {
            if (names.containsKey(m.group(1))) {
                ports.put(names.get(m.group(1)), Integer.parseInt(m.group(2)));
            }
        }
        assertThat(ports).hasSize(4);
        return ports;
    }
}
