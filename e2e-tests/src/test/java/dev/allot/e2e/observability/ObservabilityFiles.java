package dev.allot.e2e.observability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Prometheus rules and the Grafana dashboard under deploy/, and the metric names their queries use:
 * every Allot metric starts with {@code allot_} (exported by a service) or {@code allot:} (recorded by a rule).
 */
public final class ObservabilityFiles {

    private static final Pattern METRIC = Pattern.compile("\\ballot[_:][a-zA-Z0-9_:]*");
    private static final Pattern QUOTED = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");

    private ObservabilityFiles() {
    }

    public static Path root() {
        return Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
    }

    public static Path prometheus() {
        return root().resolve("deploy/prometheus");
    }

    public static Path grafanaDashboard() {
        return root().resolve("deploy/grafana/allot-dashboard.json");
    }

    /** Metric names in a PromQL expression (label values and strings left out). */
    public static Set<String> metricsIn(String expr) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(QUOTED.matcher(expr).replaceAll("\"\""));
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /** The rules file's rules (recording and alerting), as parsed YAML. */
    public static List<JsonNode> rules() throws IOException {
        JsonNode file = new ObjectMapper(new YAMLFactory()).readTree(prometheus().resolve("allot-rules.yml").toFile());
        List<JsonNode> rules = new ArrayList<>();
        file.path("groups").forEach(group -> group.path("rules").forEach(rules::add));
        return rules;
    }

    /** Series the rules record. */
    public static Set<String> recorded() throws IOException {
        Set<String> names = new TreeSet<>();
        rules().stream().filter(r -> r.has("record")).forEach(r -> names.add(r.path("record").asText()));
        return names;
    }

    /** Every expression of the rules file. */
    public static List<String> ruleExpressions() throws IOException {
        return rules().stream().map(r -> r.path("expr").asText()).toList();
    }

    public static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(grafanaDashboard().toFile());
    }

    /** The dashboard's panels that show data (rows left out), nested rows' panels included. */
    public static List<JsonNode> dataPanels(JsonNode dashboard) {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            if (p.path("type").asText().equals("row")) {
                p.path("panels").forEach(panels::add);
            } else {
                panels.add(p);
            }
        }
        return panels;
    }

    /** Metric names exported by services, that the rules and the dashboard use (recorded ones left out). */
    public static Set<String> exportedNamesUsed() throws IOException {
        Set<String> used = new TreeSet<>();
        for (String expr : ruleExpressions()) {
            used.addAll(metricsIn(expr));
        }
        for (JsonNode panel : dataPanels(dashboard())) {
            for (JsonNode target : panel.path("targets")) {
                used.addAll(metricsIn(target.path("expr").asText()));
            }
        }
        used.removeIf(name -> name.contains(":"));
        return used;
    }
}
