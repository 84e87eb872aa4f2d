package dev.allot.nodeagent;

import dev.allot.edge.KafkaClients;
import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.gpu.NvidiaSmiBackend;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.SecretStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** Wires the agent at startup: GPUs, fencing of an earlier run, registration, command loop, timers. */
@ApplicationScoped
public class AgentRuntime {

    private static final Logger LOG = Logger.getLogger(AgentRuntime.class);

    @Inject
    AgentConfig config;

    @Inject
    MeterRegistry meterRegistry;

    /** Where Quarkus says which port the HTTP server bound (a test's random port included). */
    @Inject
    jakarta.enterprise.inject.Instance<io.quarkus.value.registry.ValueRegistry> valueRegistry;

    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "127.0.0.1:9092")
    String bootstrapServers;

    @ConfigProperty(name = "allot.registry.url", defaultValue = "http://127.0.0.1:8080")
    String registryUrl;

    private volatile AgentStartup run;
    private volatile AgentMetrics metrics;

    void onStart(@Observes StartupEvent event) {
        Clock clock = Clock.systemUTC();
        String agentId = config.agentId().orElseGet(() -> hostname() + ":" + ProcessHandle.current().pid());
        StateDir state = new StateDir(Path.of(config.stateDir()));
        metrics = new AgentMetrics(meterRegistry);
        // kafka.security.protocol, kafka.sasl.mechanism, kafka.sasl.jaas.config: the node-agent principal
        KafkaClients kafka = new KafkaClients(bootstrapServers, registryUrl, dev.allot.edge.security.KafkaSecurity.from(
                key -> org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue(key, String.class)));
        List<String> nodeIds = nodeIds();
        boolean nvidia = useNvidia();
        JobSandbox sandbox = JobSandbox.configured(config.runAs(), config.jobUids(), config.jobPath())
                .niced(config.jobNice());
        if (!sandbox.reachable(state.root())) {
            LOG.warnf("jobs run as %s, who cannot reach %s: they will not be able to write checkpoint markers; put"
                    + " allot.agent.state-dir where that user can pass through (every parent o+x)", sandbox.describe(),
                    state.root());
        }
        JobLauncher launcher = new JobLauncher(state, sandbox,
                new SecretStore(config.secretsDir().map(Path::of)), this::localUrl);
        run = AgentStartup.start(new AgentStartup.Plan(kafka, metrics, clock, state, agentId, config.cluster(), nodeIds,
                () -> nvidia ? new NvidiaSmiBackend(config.nvidiaSmi()) : new FakeGpuBackend(config.gpusPerNode()),
                launcher, config.killGrace(), config.readoptWithin(), config.heartbeatInterval(), config.usageInterval(),
                config.checkpointPollInterval(), this::advertisedUrl));
        LOG.infof("node agent %s up: %d node(s) %s in cluster %s, %s GPUs, state in %s, jobs run as %s", agentId,
                nodeIds.size(), nodeIds, config.cluster(), nvidia ? "NVIDIA" : "fake", state.root(),
                run.agent().jobsRunAs());
    }

    /** Where others reach this agent's HTTP API; null when the port is chosen at random (tests). */
    private String advertisedUrl() {
        if (config.advertisedUrl().isPresent()) {
            return config.advertisedUrl().get();
        }
        org.eclipse.microprofile.config.Config all = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        int port = all.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        if (port <= 0 || io.quarkus.runtime.LaunchMode.current() == io.quarkus.runtime.LaunchMode.TEST) {
            return null;
        }
        String host = all.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0");
        return "http://" + (host.equals("0.0.0.0") || host.equals("::") ? hostname() : host) + ":" + port;
    }

    /**
     * This agent's API as a job on this machine calls it (ALLOT_CHECKPOINT_URL): loopback unless the server is
     * bound to one address. The port as bound (a test's random port is known once the server listens).
     */
    private String localUrl() {
        org.eclipse.microprofile.config.Config all = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        Integer port = valueRegistry.isResolvable()
                ? valueRegistry.get().getOrDefault(io.quarkus.vertx.http.HttpServer.HTTP_PORT, null) : null;
        if (port == null) {
            port = all.getOptionalValue("quarkus.http.port", Integer.class).orElse(8084);
        }
        if (port <= 0) {
            return null;
        }
        String host = all.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0");
        boolean any = host.equals("0.0.0.0") || host.equals("::") || host.equals("localhost");
        return "http://" + (any ? "127.0.0.1" : host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    void onStop(@Observes ShutdownEvent event) {
        if (run != null) {
            run.close();
        }
    }

    private boolean useNvidia() {
        return switch (config.backend()) {
            case "nvidia" -> true;
            case "fake" -> false;
            case "auto" -> config.fakeNodes().isEmpty() && NvidiaSmiBackend.available(config.nvidiaSmi());
            default -> throw new IllegalArgumentException("allot.agent.backend must be auto, nvidia or fake, not "
                    + config.backend());
        };
    }

    private List<String> nodeIds() {
        boolean nvidia = useNvidia();
        int fakeNodes = config.fakeNodes().orElse(1);
        if (nvidia || (fakeNodes == 1 && config.nodeId().isPresent())) {
            return List.of(config.nodeId().orElse(config.cluster() + "-" + hostname()));
        }
        if (fakeNodes < 1) {
            throw new IllegalArgumentException("allot.agent.fake-nodes must be at least 1");
        }
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= fakeNodes; i++) {
            ids.add(config.cluster() + "-node-" + i);
        }
        return ids;
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "localhost" : env;
        }
    }

    /** The running agent (null until started). */
    public NodeAgent agent() {
        AgentStartup current = run;
        return current == null ? null : current.agent();
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    public boolean commandLoopAlive() {
        AgentStartup current = run;
        return current != null && current.commandLoopAlive();
    }
}
