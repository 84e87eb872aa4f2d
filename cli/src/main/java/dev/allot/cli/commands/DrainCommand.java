package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Drains a node through the public API (operators): no new placements, jobs released as contracts allow. */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = {"Drain a node (operators): no new placements; each job on it is released as soon as its",
                "contract allows; 'allot nodes' shows DRAINING, then DRAINED once it is empty."})
public final class DrainCommand extends ApiCommand {

    @Parameters(paramLabel = "NODE", description = "Node id, as 'allot nodes' lists it.")
    String nodeId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, e.g. a maintenance ticket.")
    String reason;

    @Override
    int execute(boolean json) {
        JsonNode node = api().post("/nodes/" + ApiClient.encode(nodeId) + "/drain"
                + ApiClient.query(reason == null ? Map.of() : Map.of("reason", reason)), null);
        return json ? printJson(node) : print("drain requested for " + nodeId + " (state " + node.path("state").asText()
                + ", " + node.path("usedGpus").asInt() + " GPUs in use)\n");
    }
}
