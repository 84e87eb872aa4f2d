package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.CliFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Which cluster a command is about when none is given: $ALLOT_CLUSTER, else the only one the API knows. */
final class Clusters {

    private Clusters() {
    }

    static String resolve(ApiClient api, String given, Map<String, String> env) {
        if (given != null && !given.isBlank()) {
            return given;
        }
        String fromEnv = env.get("ALLOT_CLUSTER");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        List<String> known = known(api);
        if (known.size() == 1) {
            return known.get(0);
        }
        if (known.isEmpty()) {
            return "local";
        }
        throw CliFailure.usage("--cluster is required: the API knows several clusters " + known
                + "; e.g. --cluster " + known.get(0) + " (or set ALLOT_CLUSTER)");
    }

    static List<String> known(ApiClient api) {
        JsonNode clusters = api.get("/budgets").path("clusters");
        List<String> names = new ArrayList<>();
        clusters.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
