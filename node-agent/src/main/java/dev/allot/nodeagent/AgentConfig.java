package dev.allot.nodeagent;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** Configuration of the node agent ({@code allot.agent.*}). */
@ConfigMapping(prefix = "allot.agent")
public interface AgentConfig {

    /** Cluster the hosted nodes belong to. */
    @WithDefault("local")
    String cluster();

    /**
     * {@code auto} (fake when fake-nodes is set, else NVIDIA when nvidia-smi is on the PATH, else fake),
     * {@code nvidia} or {@code fake}.
     */
    @WithDefault("auto")
    String backend();

    /** Node id of a real node; default {@code <cluster>-<hostname>}. Ignored when more than one fake node is hosted. */
    Optional<String> nodeId();

    /**
     * Fake nodes hosted by this process: ids {@code <cluster>-node-1..N}. Setting it selects the fake backend
     * under {@code backend=auto}, even on a machine with GPUs. Unset: one node.
     */
    Optional<Integer> fakeNodes();

    /** GPUs per fake node. */
    @WithDefault("8")
    int gpusPerNode();

    /** Where epochs, pids, checkpoints and job logs live. */
    @WithDefault(".allot/agent")
    String stateDir();

    /** Identifies this agent process in NodeRegistered; default {@code <hostname>:<pid>}. */
    Optional<String> agentId();

    /**
     * Base URL of this agent's HTTP API as others reach it, sent in NodeRegistered so that the public API
     * can fetch a job's output from here; default {@code http://<quarkus.http.host or hostname>:<quarkus.http.port>}.
     */
    Optional<String> advertisedUrl();

    @WithDefault("2s")
    Duration heartbeatInterval();

    @WithDefault("30s")
    Duration usageInterval();

    /** How often checkpoint marker files are looked at. */
    @WithDefault("500ms")
    Duration checkpointPollInterval();

    /** Grace between SIGTERM and SIGKILL for stale processes found after a restart and on shutdown. */
    @WithDefault("5s")
    Duration killGrace();

    /**
     * An agent restarted less than this after its nodes were last heard from (registration, heartbeat) keeps their
     * epochs and takes over the processes still running under them; later, it takes new epochs and fences them.
     * Keep it below the scheduler's {@code allot.scheduler.lost-after} (30 s) minus the agent's start time, so that
     * a node that keeps its epoch has not been declared lost. {@code 0} fences after every restart.
     */
    @WithDefault("15s")
    Duration readoptWithin();

    /** Path of the nvidia-smi binary (looked up on the PATH by default). */
    @WithDefault("nvidia-smi")
    String nvidiaSmi();

    /**
     * The user jobs run as when the agent is root (default {@code nobody}); {@code root} runs them as root (not
     * recommended). An agent that is not root runs jobs as itself.
     */
    Optional<String> runAs();

    /**
     * {@code FIRST-LAST} (e.g. {@code 200000-265535}): a root agent runs each replica as a uid (and gid) of its own
     * from this range, with no user database entry, instead of {@code run-as}: jobs on one node cannot read each
     * other's environment, dirs or processes. Unset: {@code run-as}.
     */
    Optional<String> jobUids();

    /** {@code PATH} of a job (its own env may set another). */
    @WithDefault("/usr/local/bin:/usr/bin:/bin")
    String jobPath();

    /**
     * The niceness jobs run at (0-19; 0: the agent's own). Above 0, jobs leave the CPU to whatever else runs on the
     * node (the agent, or Allot's services where one machine hosts everything). 0 by default: on one small machine
     * that hosts the whole system, 10 made submissions faster but the jobs' own starts slower (docs/benchmarks.md).
     */
    @WithDefault("0")
    int jobNice();

    /** The node's secret store: {@code <dir>/<budget path>/<secret name>} files, mode 0600. Unset: none. */
    Optional<String> secretsDir();

    /** The file holding the secret the budget-service presents to this agent's API (made, 0600, when missing). */
    @WithDefault(".allot/auth/agent-api-secret")
    String apiSecretFile();
}
