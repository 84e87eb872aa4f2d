package dev.allot.testsupport.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.testsupport.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/** The kustomizations under k8s/ and their rendered objects (rendered once per test JVM). */
final class Rendered {

    static final Path K8S = RepositoryRoot.get().resolve("k8s");
    static final List<String> OVERLAYS = List.of("overlays/dev", "overlays/prod");

    private static final Map<String, List<JsonNode>> CACHE = new ConcurrentHashMap<>();

    private Rendered() {
    }

    /** Every directory under k8s/ holding a Kustomization (components are rendered inside the overlays). */
    static List<String> kustomizations() throws IOException {
        List<String> dirs = new ArrayList<>();
        try (Stream<Path> files = Files.walk(K8S)) {
            for (Path f : files.filter(p -> p.getFileName().toString().equals("kustomization.yaml")).sorted().toList()) {
                if (Kustomize.YAML.readTree(f.toFile()).path("kind").asText().equals("Kustomization")) {
                    dirs.add(K8S.relativize(f.getParent()).toString());
                }
            }
        }
        return dirs;
    }

    static List<JsonNode> objects(String kustomization) {
        return CACHE.computeIfAbsent(kustomization, k -> {
            try {
                return List.copyOf(Kustomize.build(K8S.resolve(k)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    static List<JsonNode> ofKind(List<JsonNode> objects, String kind) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    }

    static List<JsonNode> workloads(List<JsonNode> objects) {
        return objects.stream().filter(o -> List.of("Deployment", "StatefulSet", "DaemonSet")
                .contains(o.path("kind").asText())).toList();
    }

    static String name(JsonNode o) {
        return o.path("metadata").path("name").asText();
    }

    static String id(JsonNode o) {
        return o.path("kind").asText() + " " + name(o);
    }

    /** The value of a container's plain (non-valueFrom) environment variable. */
    static Optional<String> env(JsonNode container, String name) {
        for (JsonNode e : container.path("env")) {
            if (e.path("name").asText().equals(name) && e.has("value")) {
                return Optional.of(e.path("value").asText());
            }
        }
        return Optional.empty();
    }

    static JsonNode podSpec(JsonNode workload) {
        return workload.path("spec").path("template").path("spec");
    }

    static String app(JsonNode workload) {
        return workload.path("spec").path("template").path("metadata").path("labels")
                .path("app.kubernetes.io/name").asText();
    }

    /** Whether a label selector (matchLabels and matchExpressions In/Exists) selects these labels. */
    static boolean selects(JsonNode selector, JsonNode labels) {
        var it = selector.path("matchLabels").fields();
        while (it.hasNext()) {
            var e = it.next();
            if (!labels.path(e.getKey()).asText("\u0000").equals(e.getValue().asText())) {
                return false;
            }
        }
        for (JsonNode expr : selector.path("matchExpressions")) {
            String key = expr.path("key").asText();
            List<String> values = new ArrayList<>();
            expr.path("values").forEach(v -> values.add(v.asText()));
            boolean ok = switch (expr.path("operator").asText()) {
                case "In" -> labels.has(key) && values.contains(labels.path(key).asText());
                case "NotIn" -> !labels.has(key) || !values.contains(labels.path(key).asText());
                case "Exists" -> labels.has(key);
                case "DoesNotExist" -> !labels.has(key);
                default -> throw new IllegalArgumentException("operator " + expr);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
