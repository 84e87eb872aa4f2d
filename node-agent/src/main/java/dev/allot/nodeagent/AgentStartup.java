package dev.allot.nodeagent;

import dev.allot.edge.KafkaClients;
import dev.allot.nodeagent.gpu.GpuBackend;
import dev.allot.nodeagent.kafka.CommandConsumer;
import dev.allot.nodeagent.kafka.KafkaAgentReports;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.ProcessLedger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * How an agent run begins and ends, without the framework (the Quarkus {@link AgentRuntime} and tests that run an
 * agent in a JVM of its own both use it).
 *
 * <p>At start, per node: if the earlier run was heard from (registration, heartbeat) less than
 * {@code readopt-within} ago, the scheduler still holds the node (its lost-after is longer), so the node keeps its
 * epoch and the processes still running under it are taken over; its commands are read from where the earlier
 * run stopped. Otherwise the node takes a new epoch and everything the earlier run left is fenced (killed and
 * reported, {@link StaleProcessReaper}). Then the node registers, and the command loop and timers start.
 * A clean stop ends every process, so the next run takes a new epoch whatever the time.
 */
public final class AgentStartup implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AgentStartup.class);

    /** Everything a run needs. {@code advertisedUrl} may give null (no API advertised). */
    public record Plan(KafkaClients kafka, AgentMetrics metrics, Clock clock, StateDir state, String agentId,
                       String cluster, List<String> nodeIds, Supplier<GpuBackend> backend, JobLauncher launcher,
                       Duration killGrace, Duration readoptWithin, Duration heartbeatInterval, Duration usageInterval,
                       Duration checkpointPollInterval, Supplier<String> advertisedUrl) {
    }

    private final Plan plan;
    private final NodeAgent agent;
    private final KafkaAgentReports reports;
    private final CommandConsumer commands;
    private final ScheduledExecutorService timers;

    private AgentStartup(Plan plan, NodeAgent agent, KafkaAgentReports reports, CommandConsumer commands,
                         ScheduledExecutorService timers) {
        this.plan = plan;
        this.agent = agent;
        this.reports = reports;
        this.commands = commands;
        this.timers = timers;
    }

    public static AgentStartup start(Plan plan) {
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "allot-agent-timer");
            thread.setDaemon(true);
            return thread;
        });
        KafkaAgentReports reports = new KafkaAgentReports(plan.kafka(), "node-agent-" + plan.agentId());
        StateDir state = plan.state();

        // Which nodes keep their epoch: decided once, before anything is fenced or registered.
        long now = plan.clock().millis();
        Map<String, OptionalLong> kept = new LinkedHashMap<>();
        for (String nodeId : plan.nodeIds()) {
            kept.put(nodeId, state.resumableEpoch(nodeId, now, plan.readoptWithin()));
        }
        // Fence first: what an earlier run started belongs to an older epoch, unless the node keeps it.
        StaleProcessReaper.Outcome reaped = new StaleProcessReaper(reports, plan.metrics(), plan.clock())
                .reap(plan.nodeIds(), id -> new ProcessLedger(state.processesDir(id)), plan.killGrace(), kept::get);
        if (reaped.killed() > 0) {
            LOG.warnf("killed %d stale process(es) of an earlier agent run", reaped.killed());
        }
        List<HostedNode> nodes = new ArrayList<>();
        Set<String> resumed = new HashSet<>();
        for (String nodeId : plan.nodeIds()) {
            OptionalLong epoch = kept.get(nodeId);
            if (epoch.isPresent()) {
                resumed.add(nodeId);
                LOG.infof("node %s keeps epoch %d: its agent was heard from less than %s ago", nodeId,
                        epoch.getAsLong(), plan.readoptWithin());
            }
            nodes.add(new HostedNode(nodeId, plan.cluster(), plan.backend().get(),
                    epoch.isPresent() ? epoch.getAsLong() : state.nextEpoch(nodeId, plan.clock().millis())));
        }
        NodeAgent agent = new NodeAgent(nodes, state, reports, plan.metrics(), plan.clock(), timers, plan.agentId(),
                plan.launcher());
        for (StaleProcessReaper.Adoptable a : reaped.adoptable()) {
            agent.adopt(a.nodeId(), a.entry(), a.process());
        }
        agent.resumeHeldStarts();
        CommandConsumer commands = new CommandConsumer(plan.kafka(), "node-agent-" + plan.agentId(), agent, reports,
                plan.metrics(), state);
        commands.position(resumed);
        warmUp(commands);
        agent.advertise(plan.advertisedUrl().get());
        agent.register();
        Thread loop = new Thread(commands, "allot-agent-commands");
        loop.setDaemon(true);
        loop.start();

        every(timers, plan.heartbeatInterval(), agent::heartbeat, "heartbeat");
        every(timers, plan.usageInterval(), agent::reportUsage, "usage report");
        every(timers, plan.checkpointPollInterval(), agent::pollCheckpoints, "checkpoint poll");
        return new AgentStartup(plan, agent, reports, commands, timers);
    }

    public NodeAgent agent() {
        return agent;
    }

    public boolean commandLoopAlive() {
        return commands.alive();
    }

    /**
     * A clean stop: the command loop ends, every replica is stopped and its exit reported, and the nodes forget
     * when they were last heard from (nothing of this epoch runs any more: the next run takes a new one).
     */
    @Override
    public void close() {
        commands.close();
        agent.stopAll(plan.killGrace());
        timers.shutdownNow();
        try {
            timers.awaitTermination(2, TimeUnit.SECONDS); // no heartbeat records the node as heard after this
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (agent.runningCount() == 0) {
            for (HostedNode node : agent.nodes()) {
                try {
                    plan.state().forgetHeard(node.nodeId());
                } catch (RuntimeException e) {
                    LOG.warnf(e, "could not forget when %s was heard", node.nodeId());
                }
            }
        }
        reports.close();
    }

    /**
     * The first StartJob after a start otherwise pays for cold paths (process spawning helper, Avro decoding,
     * JIT): up to ~2 s measured. Pay it here, before the node is registered and ready.
     */
    private static void warmUp(CommandConsumer commands) {
        long began = System.nanoTime();
        try {
            new ProcessBuilder("true").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debugf("warm-up spawn failed: %s", e.toString());
        }
        commands.warmUp();
        LOG.debugf("warmed up in %d ms", (System.nanoTime() - began) / 1_000_000);
    }

    private static void every(ScheduledExecutorService timers, Duration interval, Runnable task, String what) {
        timers.scheduleAtFixedRate(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.errorf(e, "%s failed", what); // never let one failure cancel the schedule
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
}
