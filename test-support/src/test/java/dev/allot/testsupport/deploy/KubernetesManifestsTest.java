package dev.allot.testsupport.deploy;

import static dev.allot.testsupport.deploy.Rendered.app;
import static dev.allot.testsupport.deploy.Rendered.env;
import static dev.allot.testsupport.deploy.Rendered.id;
import static dev.allot.testsupport.deploy.Rendered.name;
import static dev.allot.testsupport.deploy.Rendered.ofKind;
import static dev.allot.testsupport.deploy.Rendered.podSpec;
import static dev.allot.testsupport.deploy.Rendered.selects;
import static dev.allot.testsupport.deploy.Rendered.workloads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * k8s/ rendered by a real kustomize (base, the per-cluster base and every overlay), each object read
 * strictly into the Kubernetes API model, and what an operator relies on checked on the rendered output:
 * probes, requests, scraping, disruption budgets, autoscaling, one scheduler pair and one agent
 * DaemonSet per cluster, state on volumes, references that resolve, and network policies that allow the
 * event diagram's flows and nothing else.
 */
class KubernetesManifestsTest {

    private static final Set<String> SERVICES = Set.of("budget-service", "scheduler-service", "accounting-service",
            "node-agent");

    @TestFactory
    Stream<DynamicTest> everyKustomizationRendersAndEveryObjectMatchesTheKubernetesSchema() throws IOException {
        List<String> dirs = Rendered.kustomizations();
        assertThat(dirs).contains("base", "cluster", "overlays/dev", "overlays/prod");
        return dirs.stream().map(dir -> DynamicTest.dynamicTest(dir, () -> {
            List<JsonNode> objects = Rendered.objects(dir);
            assertThat(objects).isNotEmpty();
            for (JsonNode o : objects) {
                assertThat(KubernetesModel.read(o).getMetadata().getName()).as(id(o)).isNotBlank();
            }
        }));
    }

    @Test
    void givenAFieldTheSchemaDoesNotHave_whenRead_thenItFailsNamingTheField() {
        JsonNode deployment = ofKind(Rendered.objects("overlays/prod"), "Deployment").get(0).deepCopy();
        ((ObjectNode) podSpec(deployment).path("containers").get(0)).put("readinesProbe", "typo");
        assertThatThrownBy(() -> KubernetesModel.read(deployment)).hasMessageContaining("readinesProbe");

        JsonNode wrongType = ofKind(Rendered.objects("overlays/prod"), "Deployment").get(0).deepCopy();
        ((ObjectNode) wrongType.path("spec")).put("replicas", "two");
        assertThatThrownBy(() -> KubernetesModel.read(wrongType)).hasMessageContaining("replicas");

        JsonNode unknownKind = deployment.deepCopy();
        ((ObjectNode) unknownKind).put("kind", "Deploymnet");
        assertThatThrownBy(() -> KubernetesModel.read(unknownKind)).hasMessageContaining("no schema for apps/v1/Deploymnet");
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyServiceRunsWithProbesRequestsAndScrapingAndAPinnedImage(String overlay) {
        List<JsonNode> workloads = workloads(Rendered.objects(overlay));
        assertThat(workloads.stream().map(Rendered::app).collect(Collectors.toSet())).isEqualTo(SERVICES);
        for (JsonNode w : workloads) {
            assertThat(selects(w.path("spec").path("selector"), w.path("spec").path("template").path("metadata")
                    .path("labels"))).as("%s selects its own pods", id(w)).isTrue();
            JsonNode spec = podSpec(w);
            assertThat(spec.path("hostPID").asBoolean(false)).as(id(w) + " hostPID").isFalse();
            assertThat(spec.path("hostNetwork").asBoolean(false)).as(id(w) + " hostNetwork").isFalse();
            assertThat(spec.path("containers")).as(id(w)).hasSize(1);
            JsonNode c = spec.path("containers").get(0);
            assertThat(c.path("image").asText()).as(id(w)).matches("allot/" + app(w) + ":[0-9][^:]*");
            int port = c.path("ports").get(0).path("containerPort").asInt();
            assertThat(env(c, "QUARKUS_HTTP_PORT")).as(id(w)).contains(String.valueOf(port));
            assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).as(id(w)).isEqualTo("/q/health/ready");
            assertThat(c.path("livenessProbe").path("httpGet").path("path").asText()).as(id(w)).isEqualTo("/q/health/live");
            assertThat(c.path("startupProbe").path("httpGet").path("path").asText()).as(id(w)).isEqualTo("/q/health/started");
            for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                assertThat(c.path(probe).path("httpGet").path("port").asText()).as(id(w) + " " + probe)
                        .isEqualTo(c.path("ports").get(0).path("name").asText());
            }
            assertThat(c.path("resources").path("requests").path("cpu").asText()).as(id(w) + " cpu request").isNotBlank();
            assertThat(c.path("resources").path("requests").path("memory").asText()).as(id(w) + " memory request").isNotBlank();
            JsonNode annotations = w.path("spec").path("template").path("metadata").path("annotations");
            assertThat(annotations.path("prometheus.io/scrape").asText()).as(id(w)).isEqualTo("true");
            assertThat(annotations.path("prometheus.io/port").asText()).as(id(w)).isEqualTo(String.valueOf(port));
            assertThat(annotations.path("prometheus.io/path").asText()).as(id(w)).isEqualTo("/q/metrics");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyDeploymentAndStatefulSetHasADisruptionBudgetAndTheApiAutoscalesOnCpuAndRequestRate(String overlay) {
        List<JsonNode> objects = Rendered.objects(overlay);
        List<JsonNode> budgets = ofKind(objects, "PodDisruptionBudget");
        for (JsonNode w : workloads(objects)) {
            if (w.path("kind").asText().equals("DaemonSet")) {
                continue; // one agent per GPU node: a drain moves the node's jobs, not the agent
            }
            JsonNode labels = w.path("spec").path("template").path("metadata").path("labels");
            assertThat(budgets.stream().filter(b -> selects(b.path("spec").path("selector"), labels)))
                    .as("PodDisruptionBudget of " + id(w)).hasSize(1);
        }
        List<JsonNode> hpas = ofKind(objects, "HorizontalPodAutoscaler");
        assertThat(hpas).hasSize(1);
        JsonNode hpa = hpas.get(0).path("spec");
        assertThat(hpa.path("scaleTargetRef").path("kind").asText()).isEqualTo("Deployment");
        assertThat(hpa.path("scaleTargetRef").path("name").asText()).isEqualTo("budget-service");
        Set<String> metrics = new HashSet<>();
        hpa.path("metrics").forEach(m -> metrics.add(m.path("type").asText() + ":"
                + (m.path("type").asText().equals("Resource") ? m.path("resource").path("name").asText()
                        : m.path("pods").path("metric").path("name").asText())));
        assertThat(metrics).containsExactlyInAnyOrder("Resource:cpu", "Pods:http_server_requests_per_second");
        assertThat(hpa.path("minReplicas").asInt()).isPositive().isLessThan(hpa.path("maxReplicas").asInt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyClusterHasItsSchedulerAndItsNodeAgentsAndTheyAgreeOnItsName(String overlay) {
        List<JsonNode> objects = Rendered.objects(overlay);
        Set<String> schedulerClusters = new TreeSet<>();
        Set<String> agentClusters = new TreeSet<>();
        for (JsonNode w : workloads(objects)) {
            JsonNode c = podSpec(w).path("containers").get(0);
            String label = w.path("spec").path("template").path("metadata").path("labels").path("allot.dev/cluster").asText();
            switch (app(w)) {
                case "scheduler-service" -> {
                    assertThat(w.path("kind").asText()).isEqualTo("Deployment");
                    assertThat(env(c, "ALLOT_SCHEDULER_CLUSTER")).as(id(w)).contains(label);
                    assertThat(schedulerClusters.add(label)).as("one scheduler Deployment for " + label).isTrue();
                    // never a third instance during a rollout
                    assertThat(w.path("spec").path("strategy").path("rollingUpdate").path("maxSurge").asInt(-1)).isZero();
                }
                case "node-agent" -> {
                    assertThat(w.path("kind").asText()).isEqualTo("DaemonSet");
                    assertThat(env(c, "ALLOT_AGENT_CLUSTER")).as(id(w)).contains(label);
                    assertThat(env(c, "ALLOT_AGENT_STATE_DIR")).as(id(w)).isPresent();
                    assertThat(agentClusters.add(label)).isTrue();
                }
                default -> assertThat(label).as(id(w) + " belongs to no cluster").isEmpty();
            }
        }
        assertThat(schedulerClusters).isNotEmpty().isEqualTo(agentClusters);
    }

    @Test
    void inProductionEachClusterHasAnActiveAndAStandbySchedulerOnTwoMachinesAndAgentsOwnTheirNodesGpus() {
        List<JsonNode> objects = Rendered.objects("overlays/prod");
        Set<String> clusters = new TreeSet<>();
        for (JsonNode w : workloads(objects)) {
            JsonNode spec = podSpec(w);
            String cluster = w.path("spec").path("template").path("metadata").path("labels").path("allot.dev/cluster").asText();
            if (app(w).equals("scheduler-service")) {
                clusters.add(cluster);
                assertThat(w.path("spec").path("replicas").asInt()).as(id(w)).isEqualTo(2);
                JsonNode anti = spec.path("affinity").path("podAntiAffinity").path("requiredDuringSchedulingIgnoredDuringExecution").get(0);
                assertThat(anti.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
                assertThat(selects(anti.path("labelSelector"), w.path("spec").path("template").path("metadata").path("labels")))
                        .as(id(w) + " anti-affinity selects its own pods").isTrue();
            }
            if (app(w).equals("node-agent")) {
                assertThat(spec.path("nodeSelector").path("nvidia.com/gpu.present").asText()).isEqualTo("true");
                assertThat(spec.path("nodeSelector").path("allot.dev/cluster").asText()).isEqualTo(cluster);
                JsonNode resources = spec.path("containers").get(0).path("resources");
                assertThat(resources.path("limits").path("nvidia.com/gpu").asInt()).as(id(w)).isPositive();
                assertThat(resources.path("requests").path("nvidia.com/gpu")).isEqualTo(resources.path("limits").path("nvidia.com/gpu"));
                assertThat(env(spec.path("containers").get(0), "ALLOT_AGENT_BACKEND")).contains("nvidia");
            }
        }
        assertThat(clusters).hasSizeGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void accountingKeepsItsRocksDbStateOnAVolumePerPodAndProductionKeepsStandbyReplicas(String overlay) {
        List<JsonNode> sets = ofKind(Rendered.objects(overlay), "StatefulSet");
        assertThat(sets).hasSize(1);
        JsonNode set = sets.get(0);
        JsonNode c = podSpec(set).path("containers").get(0);
        String stateDir = env(c, "KAFKA_STREAMS_STATE_DIR").orElseThrow();
        String claim = set.path("spec").path("volumeClaimTemplates").get(0).path("metadata").path("name").asText();
        assertThat(c.path("volumeMounts").findValuesAsText("mountPath")).contains(stateDir);
        boolean mounted = false;
        for (JsonNode m : c.path("volumeMounts")) {
            mounted |= m.path("name").asText().equals(claim) && m.path("mountPath").asText().equals(stateDir);
        }
        assertThat(mounted).as("the claim %s is mounted at %s", claim, stateDir).isTrue();
        assertThat(env(c, "ALLOT_ACCOUNTING_ADVERTISED_HOST")).contains("$(POD_IP)");
        // static membership under the pod's stable name: a restarted pod takes its own place in the group at once
        JsonNode instanceId = null;
        for (JsonNode e : c.path("env")) {
            instanceId = e.path("name").asText().equals("ALLOT_ACCOUNTING_INSTANCE_ID") ? e : instanceId;
        }
        assertThat(instanceId).as("ALLOT_ACCOUNTING_INSTANCE_ID").isNotNull();
        assertThat(instanceId.path("valueFrom").path("fieldRef").path("fieldPath").asText()).isEqualTo("metadata.name");
        if (overlay.endsWith("prod")) {
            assertThat(set.path("spec").path("replicas").asInt()).isGreaterThanOrEqualTo(2);
            assertThat(Integer.parseInt(env(c, "KAFKA_STREAMS_NUM_STANDBY_REPLICAS").orElseThrow())).isGreaterThanOrEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyServiceAuthenticatesToKafkaAsItsOwnPrincipalFromTheSecret_andSeesNoOthersCredentials(String overlay) {
        List<JsonNode> objects = Rendered.objects(overlay);
        JsonNode config = Rendered.ofKind(objects, "ConfigMap").stream().filter(c -> Rendered.name(c).equals("allot-config"))
                .findFirst().orElseThrow().path("data");
        assertThat(config.path("KAFKA_SECURITY_PROTOCOL").asText()).isEqualTo("SASL_PLAINTEXT");
        assertThat(config.path("KAFKA_SASL_MECHANISM").asText()).isEqualTo("SCRAM-SHA-512");
        JsonNode secret = Rendered.ofKind(objects, "Secret").stream().filter(c -> Rendered.name(c).equals("allot-kafka-sasl"))
                .findFirst().orElseThrow();
        for (JsonNode w : workloads(objects)) {
            String app = app(w);
            JsonNode jaas = null;
            for (JsonNode e : podSpec(w).path("containers").get(0).path("env")) {
                if (e.path("name").asText().equals("KAFKA_SASL_JAAS_CONFIG")) {
                    jaas = e.path("valueFrom").path("secretKeyRef");
                }
            }
            assertThat(jaas).as(id(w) + " takes KAFKA_SASL_JAAS_CONFIG from a secret").isNotNull();
            assertThat(jaas.path("name").asText()).as(id(w)).isEqualTo("allot-kafka-sasl");
            assertThat(jaas.path("key").asText()).as(id(w)).isEqualTo(app + ".sasl.jaas.config");
            String value = secret.path("stringData").path(app + ".sasl.jaas.config").asText();
            assertThat(value).as(id(w)).contains("username=\"" + app + "\"");
            assertThat(podSpec(w).findValues("secretName").stream().map(JsonNode::asText)).as(id(w)
                    + " mounts no other principal's credentials").doesNotContain("allot-kafka-sasl");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void everyConfigMapAndSecretReferencedExistsAndEverythingIsInTheAllotNamespace(String overlay) {
        List<JsonNode> objects = Rendered.objects(overlay);
        Set<String> defined = objects.stream().filter(o -> Set.of("ConfigMap", "Secret").contains(o.path("kind").asText()))
                .map(Rendered::id).collect(Collectors.toSet());
        assertThat(defined).contains("Secret allot-kafka-sasl", "Secret allot-signing-key", "ConfigMap allot-config");
        for (JsonNode w : workloads(objects)) {
            JsonNode spec = podSpec(w);
            spec.findValues("configMapRef").forEach(r -> assertThat(defined).as(id(w)).contains("ConfigMap " + r.path("name").asText()));
            spec.findValues("secretName").forEach(r -> assertThat(defined).as(id(w)).contains("Secret " + r.asText()));
        }
        for (JsonNode o : objects) {
            if (!o.path("kind").asText().equals("Namespace")) {
                assertThat(o.path("metadata").path("namespace").asText()).as(id(o)).isEqualTo("allot");
            }
            assertThat(o.path("metadata").path("labels").path("app.kubernetes.io/part-of").asText()).as(id(o)).isEqualTo("allot");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"overlays/dev", "overlays/prod"})
    void networkPoliciesAllowTheEventDiagramsFlowsAndNothingElse(String overlay) {
        NetworkPolicies policies = new NetworkPolicies(ofKind(Rendered.objects(overlay), "NetworkPolicy"));
        List<JsonNode> pods = workloads(Rendered.objects(overlay)).stream()
                .map(w -> w.path("spec").path("template").path("metadata").path("labels")).toList();
        Set<String> allowed = new TreeSet<>();
        for (JsonNode from : pods) {
            for (JsonNode to : pods) {
                for (int port : List.of(8081, 8082, 8083, 8084, 9999)) {
                    if (policies.allows(from, to, port)) {
                        allowed.add(from.path("app.kubernetes.io/name").asText() + " -> "
                                + to.path("app.kubernetes.io/name").asText() + ":" + (port == 9999 ? "any" : port));
                    }
                }
            }
        }
        // the services never call each other: only accounting pods forward queries to their peers, and a
        // gang's replicas (children of the agents) talk across nodes
        assertThat(allowed).containsExactlyInAnyOrder(
                "accounting-service -> accounting-service:8083",
                "node-agent -> node-agent:8081", "node-agent -> node-agent:8082", "node-agent -> node-agent:8083",
                "node-agent -> node-agent:8084", "node-agent -> node-agent:any");
        for (JsonNode pod : pods) {
            String who = pod.path("app.kubernetes.io/name").asText();
            assertThat(policies.egressOutside(pod)).as(who + " leaves the namespace only for Kafka, the registry and DNS")
                    .containsExactlyInAnyOrder("kafka:9092", "kafka:8080", "kube-system:53");
            assertThat(policies.ingressFromNamespace(pod, "monitoring")).as(who + " is scraped by Prometheus")
                    .contains(podSpecPort(overlay, who));
            assertThat(policies.ingressFromNamespace(pod, "some-other-namespace")).as(who)
                    .isEqualTo(who.equals("budget-service") ? Set.of(8081) : Set.of());
        }
    }

    private static int podSpecPort(String overlay, String app) {
        return workloads(Rendered.objects(overlay)).stream().filter(w -> app(w).equals(app)).findFirst()
                .map(w -> podSpec(w).path("containers").get(0).path("ports").get(0).path("containerPort").asInt()).orElseThrow();
    }
}
