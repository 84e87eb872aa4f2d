package dev.allot.e2e.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/allot-dashboard.json parses, every panel queries Allot metrics, and every recorded series it
 * uses is recorded by the rules. That the exported names are exported is MetricsEndToEndTest's part.
 */
class GrafanaDashboardTest {

    @Test
    void givenTheDashboard_whenParsed_thenEveryPanelQueriesAnAllotMetricTheRulesOrServicesProvide() throws Exception {
        JsonNode dashboard = ObservabilityFiles.dashboard();
        assertThat(dashboard.path("uid").asText()).isEqualTo("allot-slo");
        List<JsonNode> panels = ObservabilityFiles.dataPanels(dashboard);
        assertThat(panels).hasSizeGreaterThanOrEqualTo(10);
        Set<String> recorded = ObservabilityFiles.recorded();
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : panels) {
            String title = panel.path("title").asText();
            assertThat(title).isNotBlank();
            assertThat(ids.add(panel.path("id").asInt())).as("panel id of " + title + " is unique").isTrue();
            assertThat(panel.path("targets")).as(title + " has queries").isNotEmpty();
            for (JsonNode target : panel.path("targets")) {
                Set<String> names = ObservabilityFiles.metricsIn(target.path("expr").asText());
                assertThat(names).as(title + " names an Allot metric in " + target.path("expr")).isNotEmpty();
                names.stream().filter(n -> n.contains(":"))
                        .forEach(n -> assertThat(recorded).as(title + ": " + n + " is recorded by a rule").contains(n));
            }
        }
        // the budget and cluster views of the web dashboard are both there
        assertThat(panels.stream().map(p -> p.path("title").asText()))
                .anyMatch(t -> t.contains("Delivered / owed")).anyMatch(t -> t.contains("Occupancy"))
                .anyMatch(t -> t.contains("Consumer lag")).anyMatch(t -> t.contains("Dead letters"));
    }

    @Test
    void givenAnExpression_whenItsMetricsAreRead_thenLabelValuesAndFunctionsAreNotTakenForMetrics() {
        assertThat(ObservabilityFiles.metricsIn("sum by (cluster) (rate(allot_scheduler_pass_seconds_count{consumer=\"allot_x\"}[5m]))"
                + " / allot:cluster_occupancy:ratio")).containsExactly("allot:cluster_occupancy:ratio",
                "allot_scheduler_pass_seconds_count");
    }
}
