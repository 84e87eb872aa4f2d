package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Lifts a drain: the node takes new work again. */
@Command(name = "undrain", mixinStandardHelpOptions = true, description = "Lift a node's drain: it takes new work again.")
public final class UndrainCommand extends ApiCommand {

    @Parameters(paramLabel = "NODE", description = "Node id.")
    String nodeId;

    @Override
    int execute(boolean json) {
        JsonNode node = api().post("/nodes/" + ApiClient.encode(nodeId) + "/undrain", null);
        return json ? printJson(node) : print("drain lifted on " + nodeId + " (state " + node.path("state").asText() + ")\n");
    }
}
