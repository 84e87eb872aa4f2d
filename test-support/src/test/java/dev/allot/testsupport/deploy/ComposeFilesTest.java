package dev.allot.testsupport.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.testsupport.RepositoryRoot;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * compose/: the shipped file (bridge network) and the local one (host networking, 127.0.0.1, ports of
 * its own) run the same components from the same images with the same configuration keys, every key a
 * service is given exists in its application.properties, the secrets are defined and mounted, and
 * Prometheus scrapes every service. Running them needs Docker: 'bin/allot compose smoke' (not a test).
 */
class ComposeFilesTest {

    private static final Path ROOT = RepositoryRoot.get();
    /** Read by the image (images/service/Dockerfile), not by the service's configuration. */
    private static final Set<String> IMAGE_ENV = Set.of("JAVA_OPTS", "QUARKUS_HTTP_HOST");
    private static final Pattern ALLOT_IMAGE = Pattern.compile("allot/([a-z-]+):[0-9][^:]*");

    @Test
    void theShippedFileRunsEverythingOnABridgeNetworkWithSecretsAndPrometheusAndGrafana() throws IOException {
        Map<String, Object> compose = load("compose/docker-compose.yml");
        Map<String, Map<String, Object>> services = services(compose);
        assertThat(services.keySet()).containsExactlyInAnyOrder("kafka", "registry", "topics", "budget-service",
                "scheduler-service", "accounting-service", "node-agent-1", "node-agent-2", "prometheus", "grafana");
        assertThat(map(map(compose.get("networks")).get("default")).get("driver")).isEqualTo("bridge");
        services.forEach((name, s) -> assertThat(s).as(name).doesNotContainKey("network_mode"));
        assertThat(map(compose.get("secrets")).keySet()).containsExactlyInAnyOrder("allot-kafka-admin",
                "allot-kafka-budget-service", "allot-kafka-scheduler-service", "allot-kafka-accounting-service",
                "allot-kafka-node-agent", "allot-signing-key", "allot-agent-api-secret");
        // the public API reads job output from the agents with the secret both are given
        for (String reader : List.of("budget-service", "node-agent-1", "node-agent-2")) {
            assertThat(list(services.get(reader).get("secrets"))).as(reader).contains("allot-agent-api-secret");
            assertThat(map(services.get(reader).get("environment")).get("ALLOT_AGENT_API_SECRET_FILE")).as(reader)
                    .isEqualTo("/run/secrets/allot-agent-api-secret");
        }
        Map<String, Integer> ports = localPorts();
        services.forEach((name, s) -> {
            String module = module(s);
            if (module == null) {
                return;
            }
            Map<String, Object> env = map(s.get("environment"));
            assertThat(env.get("KAFKA_BOOTSTRAP_SERVERS")).as(name).isEqualTo("kafka:9092");
            assertThat(env.get("ALLOT_REGISTRY_URL")).as(name).isEqualTo("http://registry:8080");
            assertThat(env.get("QUARKUS_HTTP_PORT")).as(name).isEqualTo(String.valueOf(ports.get(module)));
            assertThat(map(s.get("depends_on")).keySet()).as(name).contains("topics", "registry");
            // its own Kafka principal's secret only, where QUARKUS_CONFIG_LOCATIONS reads it
            assertThat(env.get("QUARKUS_CONFIG_LOCATIONS")).as(name).isEqualTo("/run/secrets/allot-kafka.properties");
            List<String> kafkaSecrets = list(s.get("secrets")).stream().filter(x -> x instanceof Map<?, ?>)
                    .map(x -> String.valueOf(((Map<?, ?>) x).get("source")) + " -> " + ((Map<?, ?>) x).get("target")).toList();
            assertThat(kafkaSecrets).as(name).containsExactly("allot-kafka-" + module + " -> allot-kafka.properties");
            assertThat(list(s.get("secrets"))).as(name).noneMatch(x -> String.valueOf(x).startsWith("allot-kafka-"));
        });
        assertThat(list(services.get("kafka").get("secrets"))).containsExactlyInAnyOrder("allot-kafka-admin",
                "allot-kafka-budget-service", "allot-kafka-scheduler-service", "allot-kafka-accounting-service",
                "allot-kafka-node-agent");
        assertThat(list(services.get("topics").get("secrets"))).containsExactly("allot-kafka-admin");
        assertThat(list(services.get("budget-service").get("secrets"))).contains("allot-signing-key");
        assertThat(list(services.get("grafana").get("profiles"))).containsExactly("grafana");
        assertThat(list(services.get("grafana").get("volumes")).toString()).contains("../deploy/grafana:");
        assertThat(list(services.get("prometheus").get("volumes")).toString()).contains("../deploy/prometheus:");

        String scrape = Files.readString(ROOT.resolve("compose/prometheus/prometheus.yml"));
        services.forEach((name, s) -> {
            if (module(s) != null) {
                assertThat(scrape).as("Prometheus scrapes " + name).contains(name + ":" + ports.get(module(s)));
            }
        });
    }

    @Test
    void theLocalFileRunsTheSameImagesOnTheHostNetworkOnPortsOfItsOwnWithoutGrafana() throws IOException {
        Map<String, Map<String, Object>> shipped = services(load("compose/docker-compose.yml"));
        Map<String, Map<String, Object>> local = services(load("compose/docker-compose.local.yml"));
        Set<String> expected = new HashSet<>(shipped.keySet());
        expected.remove("grafana");
        assertThat(local.keySet()).isEqualTo(expected);
        Set<String> localPorts = new HashSet<>();
        local.forEach((name, s) -> {
            assertThat(s.get("network_mode")).as(name).isEqualTo("host");
            assertThat(s).as(name + " publishes nothing on the host network").doesNotContainKey("ports");
            assertThat(s.get("image")).as(name).isEqualTo(shipped.get(name).get("image"));
            if (module(s) != null) {
                Map<String, Object> env = map(s.get("environment"));
                assertThat(String.valueOf(env.get("KAFKA_BOOTSTRAP_SERVERS"))).as(name).startsWith("127.0.0.1:");
                assertThat(map(shipped.get(name).get("environment")).keySet()).as(name)
                        .isSubsetOf(env.keySet());
                localPorts.add(String.valueOf(env.get("QUARKUS_HTTP_PORT")));
            }
        });
        // defaults of their own: 'bin/allot up' (bin/lib.sh) may run at the same time
        assertThat(localPorts).hasSize(5);
        localPorts.forEach(p -> assertThat(p).matches("\\$\\{ALLOT_COMPOSE_\\w+_PORT:-18\\d\\d\\d}"));
    }

    @Test
    void everyKeyTheComposeFilesGiveAServiceExistsInItsApplicationProperties() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (String file : List.of("compose/docker-compose.yml", "compose/docker-compose.local.yml")) {
            services(load(file)).forEach((name, s) -> {
                String module = module(s);
                if (module == null) {
                    return;
                }
                Set<String> declared = ManifestConfigKeysTest.envNames(ManifestConfigKeysTest.declaredKeys(module));
                for (String key : map(s.get("environment")).keySet()) {
                    if (!IMAGE_ENV.contains(key) && !declared.contains(key)) {
                        unknown.add(file + " " + name + ": " + key);
                    }
                }
            });
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void theTwoNodeAgentsHostDistinctNodesUnderDistinctAgentIds() throws IOException {
        for (String file : List.of("compose/docker-compose.yml", "compose/docker-compose.local.yml")) {
            Map<String, Map<String, Object>> services = services(load(file));
            Map<String, Object> one = map(services.get("node-agent-1").get("environment"));
            Map<String, Object> two = map(services.get("node-agent-2").get("environment"));
            assertThat(one.get("ALLOT_AGENT_FAKE_NODES")).as(file).isEqualTo("1");
            assertThat(two.get("ALLOT_AGENT_FAKE_NODES")).as(file).isEqualTo("1");
            assertThat(one.get("ALLOT_AGENT_NODE_ID")).as(file).isNotEqualTo(two.get("ALLOT_AGENT_NODE_ID"));
            assertThat(one.get("ALLOT_AGENT_AGENT_ID")).as(file).isNotEqualTo(two.get("ALLOT_AGENT_AGENT_ID"));
            assertThat(one.get("ALLOT_AGENT_CLUSTER")).isEqualTo(two.get("ALLOT_AGENT_CLUSTER"))
                    .isEqualTo(map(services.get("scheduler-service").get("environment")).get("ALLOT_SCHEDULER_CLUSTER"));
        }
    }

    /** The Allot module an allot/<module>:<tag> service runs, or null (broker, registry, Prometheus...). */
    private static String module(Map<String, Object> service) {
        Matcher m = ALLOT_IMAGE.matcher(String.valueOf(service.get("image")));
        if (!m.matches() || !Files.isDirectory(ROOT.resolve(m.group(1)).resolve("src/main/resources"))) {
            return null;
        }
        return service.containsKey("command") ? null : m.group(1);
    }

    /** The service ports of the local stack, read from bin/lib.sh (the services' own defaults). */
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

    private static Map<String, Object> load(String file) throws IOException {
        try (Reader r = Files.newBufferedReader(ROOT.resolve(file))) {
            return new Yaml().load(r); // SnakeYAML resolves the '<<' merge keys the files use
        }
    }

    private static Map<String, Map<String, Object>> services(Map<String, Object> compose) {
        Map<String, Map<String, Object>> services = new TreeMap<>();
        map(compose.get("services")).forEach((k, v) -> services.put(k, map(v)));
        return services;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o == null ? Map.of() : (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return o == null ? List.of() : (List<Object>) o;
    }
}
