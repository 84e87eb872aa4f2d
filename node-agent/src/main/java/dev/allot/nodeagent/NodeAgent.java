package dev.allot.nodeagent;

import dev.allot.nodeagent.gpu.Gpu;
import dev.allot.nodeagent.process.CheckpointMarker;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.ProcessLedger;
import dev.allot.nodeagent.process.SecretStore;
import dev.allot.nodeagent.process.ProcessTree;
import dev.allot.nodeagent.process.ReplicaKey;
import dev.allot.nodeagent.process.RunningReplica;
import dev.allot.nodeagent.process.StopNotice;
import dev.allot.nodeagent.process.UsageMeter;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeUndrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.UsageReported;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Executes what the scheduler decided for the nodes this process hosts: starts and stops replica processes,
 * and reports what happened to them (started, exited, checkpointed, GPU time held). It decides nothing.
 *
 * <p>Epoch rule: a node's epoch is fixed when this agent registers it. A command carrying any other epoch
 * was meant for an earlier (or someone else's) incarnation of the node and is ignored and counted.
 */
public final class NodeAgent {

    private static final Logger LOG = Logger.getLogger(NodeAgent.class);
    private static final int SEEN_COMMANDS_KEPT = 10_000;

    /** What became of a command; for logs, metrics and tests. */
    public enum Outcome { STARTED, HELD, STOPPING, DUPLICATE, STALE_EPOCH, NOT_HOSTED, UNKNOWN_JOB, FAILED_TO_START }

    /** A StartJob whose GPUs a stopping replica still holds: started once that replica has exited. */
    private record HeldStart(ReplicaKey key, String eventId, StartJob command) {
    }

    /** How long an exit report waits for the rest of a stopped tree (the command's children) to be gone. */
    private static final Duration TREE_GONE_WAIT = Duration.ofSeconds(2);
    /** The grace of an earlier run stopped because a later run of its replica arrived without its stop. */
    private static final Duration SUPERSEDED_GRACE = Duration.ofSeconds(30);

    private final Map<String, HostedNode> nodes;
    private final StateDir state;
    private final AgentReports reports;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final ScheduledExecutorService timers;
    private final String agentId;
    private final JobLauncher launcher;
    private final Map<ReplicaKey, RunningReplica> running = new ConcurrentHashMap<>();
    private final Map<String, ProcessLedger> ledgers = new ConcurrentHashMap<>();
    /**
     * Per node: the starts held until their GPUs are free. Guarded by the list itself, which is also the
     * node's lock for "are these GPUs free, then start" against "this replica is gone, start what waited".
     */
    private final Map<String, List<HeldStart>> held = new ConcurrentHashMap<>();
    private final HeldStartFiles heldFiles;
    /** Recently handled command ids, so a redelivered StartJob is not run twice. */
    private final Set<String> seenCommands = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > SEEN_COMMANDS_KEPT;
        }
    });

    /** Jobs run as the agent's own user, without a secret store (tests that build an agent by hand). */
    public NodeAgent(List<HostedNode> nodes, StateDir state, AgentReports reports, AgentMetrics metrics,
                     Clock clock, ScheduledExecutorService timers, String agentId) {
        this(nodes, state, reports, metrics, clock, timers, agentId,
                new JobLauncher(state, JobSandbox.asAgentUser(), new SecretStore(Optional.empty()), () -> null));
    }

    public NodeAgent(List<HostedNode> nodes, StateDir state, AgentReports reports, AgentMetrics metrics,
                     Clock clock, ScheduledExecutorService timers, String agentId, JobLauncher launcher) {
        this.launcher = launcher;
        Map<String, HostedNode> byId = new LinkedHashMap<>();
        nodes.forEach(node -> byId.put(node.nodeId(), node));
        this.nodes = Collections.unmodifiableMap(byId);
        this.state = state;
        this.reports = reports;
        this.metrics = metrics;
        this.clock = clock;
        this.timers = timers;
        this.agentId = agentId;
        this.heldFiles = new HeldStartFiles(state);
        metrics.gaugeRunning(running::size);
    }

    public boolean hosts(String nodeId) {
        return nodes.containsKey(nodeId);
    }

    public List<HostedNode> nodes() {
        return List.copyOf(nodes.values());
    }

    public int runningCount() {
        return running.size();
    }

    private volatile String apiUrl;

    /** The URL of this agent's HTTP API, announced with each registration (null: none advertised). */
    public void advertise(String url) {
        this.apiUrl = url;
    }

    /** The file a replica's stdout and stderr are appended to. */
    public java.nio.file.Path logFile(String jobId, int replicaIndex) {
        return state.logFile(jobId, replicaIndex);
    }

    /** Announces every hosted node under its epoch. Call after fencing earlier processes. */
    public void register() {
        Instant now = now();
        for (HostedNode node : nodes.values()) {
            reports.nodeStatus(node.nodeId(), NodeRegistered.newBuilder()
                    .setCluster(node.cluster())
                    .setGpuCount(node.gpuCount())
                    .setGpuModel(node.backend().model())
                    .setEpoch(node.epoch())
                    .setAgentId(agentId)
                    .setApiUrl(apiUrl)
                    .build(), now);
            LOG.infof("registered node %s (cluster %s, %d x %s) under epoch %d", node.nodeId(), node.cluster(),
                    node.gpuCount(), node.backend().model(), node.epoch());
        }
        reports.flush();
        nodes.values().forEach(node -> heard(node.nodeId(), now));
    }

    public Outcome handle(NodeCommand command) {
        Object payload = command.getPayload();
        if (payload instanceof StartJob start) {
            return start(command.getEventId(), start);
        }
        if (payload instanceof StopJob stop) {
            return stop(stop);
        }
        throw new IllegalArgumentException("unknown command payload " + payload.getClass().getName());
    }

    private Outcome start(String eventId, StartJob command) {
        HostedNode node = nodes.get(command.getNodeId());
        if (node == null) {
            return Outcome.NOT_HOSTED;
        }
        if (command.getNodeEpoch() != node.epoch()) {
            return stale(command.getNodeId(), command.getNodeEpoch(), node.epoch(), "StartJob " + command.getJobId());
        }
        ReplicaKey key = new ReplicaKey(command.getNodeId(), command.getJobId(), command.getReplicaIndex());
        List<HeldStart> waiting = held(key.nodeId());
        synchronized (waiting) {
            RunningReplica earlier = running.get(key);
            synchronized (seenCommands) {
                // The same run again (redelivered, or re-read after a restart that took its process over). A later
                // run of the replica (a higher restart count: requeued, then placed here again) is not a duplicate,
                // even while the earlier run's process is still being stopped.
                if (!seenCommands.add(eventId)
                        || earlier != null && earlier.command().getRestartCount() >= command.getRestartCount()
                        || waiting.stream().anyMatch(h -> h.key().equals(key))) {
                    LOG.infof("duplicate StartJob %s for %s ignored", eventId, key);
                    return Outcome.DUPLICATE;
                }
            }
            if (earlier != null && !earlier.stopRequested()) {
                // The scheduler stops a run before it places the replica again; should that stop be missing, the
                // newest placement is the truth and the earlier run is superseded.
                LOG.warnf("StartJob for %s (restart %d) while its restart %d still runs, not stopped: stopping it",
                        key, command.getRestartCount(), earlier.command().getRestartCount());
                stop(earlier, SUPERSEDED_GRACE, "superseded by restart " + command.getRestartCount(), true);
            }
            List<ReplicaKey> holders = holders(key, command.getGpuIndices());
            if (!holders.isEmpty()) {
                // Two processes must never share a GPU, nor two runs one replica's dirs: wait until the holder exits.
                waiting.add(new HeldStart(key, eventId, command));
                heldFiles.keep(key, eventId, command);
                LOG.infof("StartJob for %s held: GPUs %s or the replica are still held by %s", key,
                        command.getGpuIndices(), holders);
                return Outcome.HELD;
            }
            return launchAndReport(key, command);
        }
    }

    /** Replicas running on the node with any of these GPUs, or an earlier run of this replica (normally stopping). */
    private List<ReplicaKey> holders(ReplicaKey key, List<Integer> gpus) {
        return running.values().stream()
                .filter(r -> r.key().nodeId().equals(key.nodeId())
                        && (r.key().equals(key) || r.command().getGpuIndices().stream().anyMatch(gpus::contains)))
                .map(RunningReplica::key).toList();
    }

    private List<HeldStart> held(String nodeId) {
        return held.computeIfAbsent(nodeId, id -> new ArrayList<>());
    }

    /**
     * Starts, in arrival order, the held starts of the node whose GPUs are free now. Under the node's lock.
     * One at a time, looking again after each: a start takes GPUs, and one that exits at once comes back here.
     */
    private void startHeld(String nodeId) {
        List<HeldStart> waiting = held(nodeId);
        synchronized (waiting) {
            Optional<HeldStart> next;
            while ((next = waiting.stream().filter(h -> holders(h.key(), h.command().getGpuIndices()).isEmpty())
                    .findFirst()).isPresent()) {
                HeldStart h = next.get();
                waiting.remove(h);
                LOG.infof("GPUs %s of %s are free: starting %s", h.command().getGpuIndices(), nodeId, h.key());
                launchAndReport(h.key(), h.command());
                heldFiles.forget(h.key()); // after the launch: killed in between, the next run finds it a duplicate
            }
        }
    }

    private Outcome launchAndReport(ReplicaKey key, StartJob command) {
        RunningReplica replica;
        try {
            replica = launch(key, command);
        } catch (IOException | RuntimeException e) {
            // Report it as an exit (127, as a shell does for a command it cannot run): the scheduler frees the GPUs.
            LOG.errorf(e, "cannot start %s: %s", key, command.getCommand());
            reports.jobEvent(key.jobId(), JobExited.newBuilder().setNodeId(key.nodeId())
                    .setReplicaIndex(key.replicaIndex()).setExitCode(127).setStopped(false).build(), now());
            return Outcome.FAILED_TO_START;
        }
        running.put(key, replica);
        metrics.processesStarted.increment();
        remember(replica);
        try {
            reports.jobEvent(replica.startedEventId(), key.jobId(), replica.started(), replica.startedAt());
        } catch (RuntimeException e) { // refused (reports closed, or interrupted while the registry is away): it runs
            LOG.errorf(e, "could not report the start of %s; its exit is still watched and reported", key);
        }
        LOG.infof("started %s pid %d on GPUs %s: %s", key, replica.pid(), command.getGpuIndices(),
                command.getCommand());
        // Registered after the replica is in the map, so the exit always finds it.
        replica.onExit().whenComplete((process, error) -> exited(replica));
        return Outcome.STARTED;
    }

    private RunningReplica launch(ReplicaKey key, StartJob command) throws IOException {
        return launcher.launch(key, command, ledger(key.nodeId()).exitFile(key.jobId(), key.replicaIndex()), now());
    }

    /**
     * Takes over a replica that an earlier run of this agent started under the node's current epoch and that still
     * runs (the agent was restarted within {@code readopt-within} of its last heartbeat: the scheduler still holds
     * the node and its jobs). Its start is reported again under the run's own event id (the earlier run may have
     * died with it in its producer's buffer; consumers drop a copy); its usage continues from where the earlier
     * run's reports stopped, and its exit is reported once, when it comes. A stop in progress keeps its deadline.
     */
    public void adopt(String nodeId, ProcessLedger.Entry entry, ProcessHandle handle) {
        HostedNode node = nodes.get(nodeId);
        ProcessLedger.Resume r = entry.resume();
        if (node == null || r == null || entry.nodeEpoch() != node.epoch()) {
            throw new IllegalArgumentException("not a replica of " + nodeId + " under its epoch: " + entry);
        }
        ReplicaKey key = new ReplicaKey(nodeId, entry.jobId(), entry.replicaIndex());
        StartJob command = StartJob.newBuilder().setJobId(entry.jobId()).setNodeId(nodeId)
                .setNodeEpoch(entry.nodeEpoch()).setReplicaIndex(entry.replicaIndex()).setReplicas(r.replicas())
                .setGpuIndices(r.gpuIndices()).setCommand(List.of()).setEnv(Map.of()).setRestartCount(r.restartCount())
                .setBudget(entry.account()).setCluster(entry.cluster())
                .setChargeMode(dev.allot.schemas.ChargeMode.valueOf(entry.chargeMode())).build();
        RunningReplica replica = RunningReplica.adopted(key, command, handle, Instant.ofEpochMilli(r.startedAtMillis()),
                entry.usageReportedUntil(), state.checkpointDir(key.jobId(), key.replicaIndex()),
                r.checkpointMarkerMillis() < 0 ? null : FileTime.fromMillis(r.checkpointMarkerMillis()),
                ledger(nodeId).exitFile(key.jobId(), key.replicaIndex()), r.tokenHash());
        launcher.adopted(key);
        running.put(key, replica);
        reports.jobEvent(replica.startedEventId(), key.jobId(), replica.started(), replica.startedAt());
        if (r.stopDeadlineMillis() > 0) {
            replica.markStopping(r.stoppedByScheduler());
            replica.stopDeadline(r.stopDeadlineMillis());
            replica.signalled(ProcessTree.snapshot(handle));
            scheduleKill(replica, r.stopDeadlineMillis() - clock.millis());
        }
        metrics.processesAdopted.increment();
        LOG.infof("took over %s pid %d on GPUs %s (started %s, usage reported until %s)%s", key, handle.pid(),
                r.gpuIndices(), Instant.ofEpochMilli(r.startedAtMillis()), entry.usageReportedUntil(),
                r.stopDeadlineMillis() > 0 ? ", stopping" : "");
        replica.onExit().whenComplete((process, error) -> exited(replica));
    }

    private Outcome stop(StopJob command) {
        HostedNode node = nodes.get(command.getNodeId());
        if (node == null) {
            return Outcome.NOT_HOSTED;
        }
        if (command.getNodeEpoch() != node.epoch()) {
            return stale(command.getNodeId(), command.getNodeEpoch(), node.epoch(), "StopJob " + command.getJobId());
        }
        List<HeldStart> waiting = held(command.getNodeId());
        synchronized (waiting) {
            List<HeldStart> dropped = waiting.stream().filter(h -> h.key().jobId().equals(command.getJobId())).toList();
            if (!dropped.isEmpty()) {
                waiting.removeAll(dropped);
                dropped.forEach(h -> heldFiles.forget(h.key()));
                // It never ran: nothing to stop and nothing to report (no JobStarted was either).
                LOG.infof("StopJob for %s on %s: its start was still held, dropped", command.getJobId(),
                        command.getNodeId());
                return Outcome.STOPPING;
            }
        }
        List<RunningReplica> replicas = running.values().stream()
                .filter(r -> r.key().nodeId().equals(command.getNodeId()) && r.key().jobId().equals(command.getJobId()))
                .toList();
        if (replicas.isEmpty()) {
            LOG.infof("StopJob for %s on %s: nothing runs (already exited?)", command.getJobId(), command.getNodeId());
            return Outcome.UNKNOWN_JOB;
        }
        Duration grace = Duration.ofSeconds(Math.max(0, command.getGracePeriodSeconds()));
        replicas.forEach(replica -> stop(replica, grace, command.getReason().toString(), true));
        return Outcome.STOPPING;
    }

    /**
     * The notice in the checkpoint dir, then SIGTERM to the tree now, SIGKILL after the grace period if the
     * process is still there. A command that has already ended by itself (its supervisor recorded the status)
     * is not stopped: it ended before the stop took effect, and its exit is reported as its own.
     */
    private void stop(RunningReplica replica, Duration grace, String why, boolean byScheduler) {
        if (replica.commandEnded()) {
            LOG.infof("stop of %s (%s): it has already ended by itself", replica.key(), why);
            return;
        }
        if (!replica.markStopping(byScheduler)) {
            return;
        }
        LOG.infof("stopping %s (%s): notice, SIGTERM, SIGKILL after %s", replica.key(), why, grace);
        try {
            StopNotice.write(replica.noticeFile(), why, grace, now());
        } catch (RuntimeException e) {
            LOG.warnf(e, "could not write the stop notice of %s; it gets the SIGTERM all the same", replica.key());
        }
        ProcessHandle root = replica.handle();
        replica.signalled(ProcessTree.snapshot(root));
        replica.stopDeadline(now().plus(grace).toEpochMilli());
        remember(replica); // a restarted agent that takes the replica over keeps the SIGKILL's deadline
        ProcessTree.terminate(root);
        scheduleKill(replica, grace.toMillis());
    }

    /** SIGKILL to the command's tree after {@code delayMillis} if the replica is still there. */
    private void scheduleKill(RunningReplica replica, long delayMillis) {
        ProcessHandle root = replica.handle();
        replica.killTimer(timers.schedule(() -> {
            if (replica.isAlive()) {
                LOG.warnf("%s outlived its grace period: SIGKILL", replica.key());
                replica.signalled(ProcessTree.snapshot(root));
                if (ProcessTree.killCommand(root)) {
                    // The supervisor records the kill and exits; if it does not, it goes too.
                    timers.schedule(() -> ProcessTree.kill(root), TREE_GONE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        }, Math.max(0, delayMillis), TimeUnit.MILLISECONDS));
    }

    private Outcome stale(String nodeId, long commandEpoch, long currentEpoch, String what) {
        metrics.staleCommands.increment();
        LOG.warnf("ignored %s for node %s: epoch %d, the node is at epoch %d", what, nodeId, commandEpoch, currentEpoch);
        return Outcome.STALE_EPOCH;
    }

    /**
     * The supervisor exited (with its command's status): a last look at the checkpoint marker (a job that
     * checkpointed on notice and exited at once is reported checkpointed first), the last usage tile, then
     * JobExited; then the replica's GPUs are free and the starts held for them run.
     */
    private void exited(RunningReplica replica) {
        try {
            ProcessTree.awaitGone(replica.signalled(), TREE_GONE_WAIT); // its children release their GPUs too
            Instant endedAt = now();
            int exitCode = replica.exitCode();
            replica.cancelKillTimer();
            synchronized (replica) { // not between a checkpoint poll's look and its report
                lastCheckpointLook(replica);
                replica.usage().close(endedAt).ifPresent(tile -> reportUsage(replica, tile));
                reports.jobEvent(replica.key().jobId(), JobExited.newBuilder()
                        .setNodeId(replica.key().nodeId())
                        .setReplicaIndex(replica.key().replicaIndex())
                        .setExitCode(exitCode)
                        // Ended by Allot (StopJob, or the agent's own shutdown), not by itself: never a job verdict.
                        .setStopped(replica.stopRequested())
                        .build(), endedAt);
                replica.markExited();
            }
            LOG.infof("%s exited with %d%s", replica.key(), exitCode, replica.stopRequested() ? " (stopped)" : "");
        } catch (RuntimeException e) {
            LOG.errorf(e, "could not report the exit of %s", replica.key());
        } finally {
            List<HeldStart> waiting = held(replica.key().nodeId());
            synchronized (waiting) {
                running.remove(replica.key(), replica);
                metrics.processesExited.increment();
                synchronized (replica) { // not between a usage report's ledger update and its write
                    replica.markExited();
                    try {
                        ledger(replica.key().nodeId()).forget(replica.key().jobId(), replica.key().replicaIndex());
                    } catch (RuntimeException e) {
                        LOG.warnf(e, "could not forget %s in the process ledger", replica.key());
                    }
                }
                try {
                    launcher.finished(replica.key());
                } catch (RuntimeException e) {
                    LOG.warnf(e, "could not take back the dirs of %s", replica.key());
                }
                replica.exitReported().complete(null);
                startHeld(replica.key().nodeId());
            }
        }
    }

    /**
     * An operator on this machine asks to drain one of its nodes (or to take work again). The agent only
     * publishes the request; the scheduler stops placing, releases jobs as their contracts allow, and
     * publishes NodeDrained. False when the node is not hosted here.
     */
    public boolean requestDrain(String nodeId, String requestedBy, String reason) {
        HostedNode node = nodes.get(nodeId);
        if (node == null) {
            return false;
        }
        reports.nodeStatus(nodeId, NodeDrainRequested.newBuilder()
                .setCluster(node.cluster()).setRequestedBy(requestedBy).setReason(reason).build(), now());
        LOG.infof("drain of %s requested by %s (%s)", nodeId, requestedBy, reason);
        return true;
    }

    public boolean requestUndrain(String nodeId, String requestedBy) {
        HostedNode node = nodes.get(nodeId);
        if (node == null) {
            return false;
        }
        reports.nodeStatus(nodeId, NodeUndrained.newBuilder()
                .setCluster(node.cluster()).setRequestedBy(requestedBy).build(), now());
        LOG.infof("%s takes work again (asked by %s)", nodeId, requestedBy);
        return true;
    }

    /** Job ids with a live process on the node, sorted. */
    public List<String> runningJobs(String nodeId) {
        return running.keySet().stream().filter(k -> k.nodeId().equals(nodeId)).map(ReplicaKey::jobId)
                .distinct().sorted().toList();
    }

    /** Heartbeat of every node, with its running jobs and mean GPU utilisation when the backend knows it. */
    public void heartbeat() {
        Instant now = now();
        // one pass over the running replicas, not one per node: an agent hosting hundreds of fake nodes runs
        // thousands of replicas
        Map<String, List<RunningReplica>> byNode = new java.util.HashMap<>();
        for (RunningReplica replica : running.values()) {
            byNode.computeIfAbsent(replica.key().nodeId(), id -> new ArrayList<>()).add(replica);
        }
        for (HostedNode node : nodes.values()) {
            List<Gpu> gpus = node.backend().gpus();
            List<RunningReplica> onNode = byNode.getOrDefault(node.nodeId(), List.of());
            for (RunningReplica replica : onNode) {
                gpus.stream().filter(g -> replica.command().getGpuIndices().contains(g.index()) && g.utilisation() != null)
                        .mapToDouble(Gpu::utilisation).average()
                        .ifPresent(replica.usage()::sampleUtilisation);
            }
            OptionalDouble mean = gpus.stream().filter(g -> g.utilisation() != null).mapToDouble(Gpu::utilisation).average();
            reports.nodeStatus(node.nodeId(), NodeHeartbeat.newBuilder()
                    .setCluster(node.cluster())
                    .setEpoch(node.epoch())
                    .setRunningJobs(onNode.stream().map(r -> r.key().jobId()).distinct().sorted().toList())
                    .setMeanGpuUtilisation(mean.isPresent() ? mean.getAsDouble() : null)
                    .build(), now);
            heard(node.nodeId(), now);
        }
    }

    /** When the node last told the scheduler it lives: a restart soon after may take its processes over. */
    private void heard(String nodeId, Instant at) {
        try {
            state.recordHeard(nodeId, at.toEpochMilli());
        } catch (RuntimeException e) {
            LOG.warnf(e, "could not record the heartbeat of %s; a restart will fence its processes", nodeId);
        }
    }

    /**
     * One usage tile per running replica, from its last report to now. The ledger learns how far usage was
     * reported only once the broker has the tiles: a restarted agent then neither repeats a tile nor leaves a gap
     * (unless it dies between the two, a few milliseconds).
     */
    public void reportUsage() {
        Instant now = now();
        List<RunningReplica> cut = new ArrayList<>();
        for (RunningReplica replica : running.values()) {
            replica.usage().cut(now).ifPresent(tile -> {
                reportUsage(replica, tile);
                cut.add(replica);
            });
        }
        if (!cut.isEmpty()) {
            reports.flush();
            cut.forEach(this::remember);
        }
    }

    private void reportUsage(RunningReplica replica, UsageMeter.Tile tile) {
        StartJob command = replica.command();
        reports.usage(UsageReported.newBuilder()
                .setJobId(replica.key().jobId())
                .setAccount(command.getBudget())
                .setCluster(command.getCluster())
                .setNodeId(replica.key().nodeId())
                .setGpus(tile.gpus())
                .setIntervalStart(tile.start())
                .setIntervalEnd(tile.end())
                .setGpuSeconds(tile.gpuSeconds())
                .setChargeMode(command.getChargeMode())
                .setMeanGpuUtilisation(tile.meanUtilisation())
                .build());
    }

    /**
     * Looks at every running replica's checkpoint marker; a changed modification time is a checkpoint.
     * A marker seen empty is reported at the next look: a shell's {@code echo loc > checkpoint} creates
     * the file before it writes the location, and a look in between must not report the directory.
     */
    public void pollCheckpoints() {
        for (RunningReplica replica : running.values()) {
            synchronized (replica) { // a checkpoint seen here is reported before the replica's exit
                if (replica.exited()) {
                    continue;
                }
                Path marker = replica.checkpointMarker();
                FileTime at = CheckpointMarker.time(marker);
                if (replica.markerChanged(at)) {
                    Optional<String> location = CheckpointMarker.location(marker);
                    if (location.isPresent()) {
                        replica.markerEmptyAt(null); // (whatever was pending is this checkpoint)
                        checkpointed(replica, location.get());
                    } else {
                        replica.markerEmptyAt(at);
                    }
                } else if (replica.stillEmptyAt(at)) {
                    checkpointed(replica, CheckpointMarker.location(marker).orElse(replica.checkpointDir().toString()));
                }
            }
        }
    }

    /** At exit: a marker changed since the last look, or seen empty, is a checkpoint (the job is done writing). */
    private void lastCheckpointLook(RunningReplica replica) {
        Path marker = replica.checkpointMarker();
        FileTime at = CheckpointMarker.time(marker);
        if (replica.markerChanged(at) || replica.stillEmptyAt(at)) {
            checkpointed(replica, CheckpointMarker.location(marker).orElse(replica.checkpointDir().toString()));
        }
    }

    /** What a checkpoint callback came to. */
    public enum Callback { REPORTED, NOT_RUNNING, NOT_ITS_TOKEN }

    /**
     * A job called back to say it checkpointed, showing its {@code ALLOT_JOB_TOKEN}: the replica the token was
     * given to is reported, and no other (a token of another job, or of another replica than {@code replicaIndex},
     * is refused).
     */
    public Callback checkpointCallback(String jobId, Integer replicaIndex, String location, String token) {
        List<RunningReplica> replicas = running.values().stream()
                .filter(r -> r.key().jobId().equals(jobId) && !r.exited()).toList();
        if (replicas.isEmpty()) {
            return Callback.NOT_RUNNING;
        }
        RunningReplica owner = null;
        for (RunningReplica r : replicas) { // every one compared: the time taken says nothing of which matched
            if (r.tokenMatches(token)) {
                owner = r;
            }
        }
        if (owner == null || (replicaIndex != null && owner.key().replicaIndex() != replicaIndex)) {
            return Callback.NOT_ITS_TOKEN;
        }
        synchronized (owner) {
            if (owner.exited()) {
                return Callback.NOT_RUNNING;
            }
            checkpointed(owner, location);
        }
        return Callback.REPORTED;
    }

    /** Who jobs run as on this agent, for logs and health. */
    public String jobsRunAs() {
        return launcher.sandbox().describe();
    }

    private void checkpointed(RunningReplica replica, String location) {
        metrics.checkpoints.increment();
        reports.jobEvent(replica.key().jobId(), JobCheckpointed.newBuilder()
                .setNodeId(replica.key().nodeId())
                .setReplicaIndex(replica.key().replicaIndex())
                .setLocation(location)
                .build(), now());
        remember(replica); // a restarted agent does not report this checkpoint again
        LOG.infof("%s checkpointed (%s)", replica.key(), location);
    }

    /**
     * Holds again (or starts, GPUs free) what an earlier run held for nodes that keep their epoch; the rest is of a
     * fenced epoch, dropped. After the adoptions (adopted replicas hold GPUs), before the command loop starts.
     */
    public void resumeHeldStarts() {
        for (HostedNode node : nodes.values()) {
            for (HeldStartFiles.Kept kept : heldFiles.load(node.nodeId(), node.epoch())) {
                Outcome outcome = start(kept.eventId(), kept.command());
                LOG.infof("held start of %s kept from the earlier run: %s", kept.key(), outcome);
                if (outcome != Outcome.HELD) {
                    heldFiles.forget(kept.key());
                }
            }
        }
    }

    /**
     * Stops everything on shutdown: SIGTERM, SIGKILL after the grace, and waits (a little longer) until the
     * exits are reported, so that usage tiles end at the real release.
     */
    public void stopAll(Duration grace) {
        held.values().forEach(waiting -> {
            synchronized (waiting) {
                waiting.forEach(h -> heldFiles.forget(h.key()));
                waiting.clear(); // never started, never reported (the next run takes a new epoch)
            }
        });
        List<RunningReplica> replicas = new ArrayList<>(running.values());
        if (replicas.isEmpty()) {
            return;
        }
        replicas.forEach(r -> stop(r, grace, "AGENT_SHUTDOWN", false));
        try {
            java.util.concurrent.CompletableFuture.allOf(replicas.stream().map(RunningReplica::exitReported)
                    .toArray(java.util.concurrent.CompletableFuture[]::new))
                    .get(grace.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warnf("not every exit was reported before shutdown: %s", e.toString());
        }
    }

    /**
     * Writes the replica to its node's ledger, unless its exit was already reported (a late usage report must
     * not resurrect the entry). A failure is logged, not thrown: the process runs and its exit must be reported.
     */
    private void remember(RunningReplica replica) {
        synchronized (replica) {
            if (replica.exited()) {
                return;
            }
            try {
                ledger(replica.key().nodeId()).record(replica.ledgerEntry());
            } catch (RuntimeException e) {
                LOG.warnf(e, "could not write %s to the process ledger; a restart would not fence it", replica.key());
            }
        }
    }

    ProcessLedger ledger(String nodeId) {
        return ledgers.computeIfAbsent(nodeId, id -> new ProcessLedger(state.processesDir(id)));
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }
}
