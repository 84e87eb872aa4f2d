package dev.allot.nodeagent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/** The agent's meters (Prometheus at /q/metrics). */
public final class AgentMetrics {

    private final MeterRegistry registry;
    final Counter staleCommands;
    final Counter deadLetters;
    final Counter processesStarted;
    final Counter processesExited;
    final Counter staleProcessesKilled;
    final Counter checkpoints;

    public AgentMetrics(MeterRegistry registry) {
        this.registry = registry;
        staleCommands = Counter.builder("allot.agent.commands.ignored.stale")
                .description("Commands ignored because they carried another node epoch").register(registry);
        deadLetters = Counter.builder("allot.agent.dead.letters")
                .description("node-commands records sent to dead-letters").register(registry);
        processesStarted = Counter.builder("allot.agent.processes.started").register(registry);
        processesExited = Counter.builder("allot.agent.processes.exited").register(registry);
        staleProcessesKilled = Counter.builder("allot.agent.processes.stale.killed")
                .description("Processes of an earlier agent run killed after a restart").register(registry);
        checkpoints = Counter.builder("allot.agent.checkpoints").register(registry);
    }

    void gaugeRunning(Supplier<Number> running) {
        io.micrometer.core.instrument.Gauge.builder("allot.agent.processes.running", running)
                .description("Job replica processes this agent runs").strongReference(true).register(registry);
    }

    public double staleCommandCount() {
        return staleCommands.count();
    }

    public double deadLetterCount() {
        return deadLetters.count();
    }

    public void deadLettered() {
        deadLetters.increment();
    }
}
