package dev.allot.nodeagent;

import dev.allot.edge.ConsumerLag;
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
    final Counter processesAdopted;
    final Counter checkpoints;
    private final ConsumerLag lag = new ConsumerLag();

    public AgentMetrics(MeterRegistry registry) {
        this.registry = registry;
        staleCommands = Counter.builder("allot.agent.commands.ignored.stale")
                .description("Commands ignored because they carried another node epoch").register(registry);
        deadLetters = Counter.builder("allot.dead.letters").tag("consumer", "node-agent")
                .description("node-commands records sent to dead-letters").register(registry);
        io.micrometer.core.instrument.Gauge.builder("allot.consumer.lag.records", lag, ConsumerLag::records)
                .tag("consumer", "node-agent")
                .description("node-commands records the agent is behind the ends of the partitions").register(registry);
        processesStarted = Counter.builder("allot.agent.processes.started").register(registry);
        processesExited = Counter.builder("allot.agent.processes.exited").register(registry);
        staleProcessesKilled = Counter.builder("allot.agent.processes.stale.killed")
                .description("Processes of an earlier agent run killed after a restart").register(registry);
        processesAdopted = Counter.builder("allot.agent.processes.adopted")
                .description("Processes of an earlier agent run under the same epoch taken over after a restart")
                .register(registry);
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

    /** On the consumer's thread, after each poll. */
    public void lag(org.apache.kafka.clients.consumer.Consumer<?, ?> consumer) {
        lag.measure(consumer);
    }

    public void deadLettered() {
        deadLetters.increment();
    }
}
