package dev.allot.nodeagent;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the nodes are registered and the node-commands loop runs. */
@Readiness
@ApplicationScoped
public class AgentReadiness implements HealthCheck {

    @Inject
    AgentRuntime runtime;

    @Override
    public HealthCheckResponse call() {
        NodeAgent agent = runtime.agent();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("node-agent");
        if (agent == null) {
            return response.down().withData("reason", "starting").build();
        }
        agent.nodes().forEach(node -> response.withData(node.nodeId(), "epoch " + node.epoch() + ", "
                + node.gpuCount() + " x " + node.backend().model()));
        response.withData("runningProcesses", agent.runningCount());
        return response.status(runtime.commandLoopAlive()).build();
    }
}
