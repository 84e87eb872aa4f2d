package dev.allot.budget.jobs;

import dev.allot.budget.AvroJson;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobState;
import dev.allot.schemas.JobSubmitted;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the log says about one job: its submission (job-requests) and every fact of its life
 * (job-events). Events are applied once each (by event id), so the submitting instance can record
 * its own submission as soon as Kafka acked it and later see the same record from the log.
 */
public final class JobRecord implements JobBook.Entry {

    /**
     * One line of the job's history. Its details are kept as the event's own record and rendered when asked: a map
     * per event, made as it was read, held 100,000 jobs' history in more than the service's 384 MB heap.
     */
    public record HistoryEntry(String type, Instant at, String stateAfter, Object source, long seq) {
        @SuppressWarnings("unchecked")
        public Map<String, Object> details() {
            if (source instanceof org.apache.avro.generic.IndexedRecord record) {
                return AvroJson.toMap(record);
            }
            return source instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
        }
    }

    private final String id;
    private final SeenEventIds seenEvents = new SeenEventIds();
    /** The facts applied, in the order they came: what a {@link FinishedJob} keeps of the record. */
    private final List<JobFacts.Fact> facts = new ArrayList<>();
    private final List<HistoryEntry> history = new ArrayList<>();
    private long seq;
    private JobSubmitted submission;
    private JobState state;
    private boolean seenByScheduler;
    private String budget;
    private String cluster;
    private String chargeMode;
    private JobPlaced placement;
    private Instant placedAt;
    private JobRejected rejection;
    /** The scheduler's acceptance: the request's shape when the submission itself is not (or no longer) in the log. */
    private JobAccepted accepted;
    /** The JobCancelled verdict: who cancelled and why. */
    private Map<String, Object> cancellation;
    private final List<Map<String, Object>> preemptions = new ArrayList<>();
    private final List<Map<String, Object>> cancelRequests = new ArrayList<>();

    JobRecord(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** A request of job-requests (its submission or a cancel request), with its bytes when read from the log. */
    synchronized void request(JobRequest request, byte[] wire) {
        if (!seenEvents.add(request.getEventId())) {
            return;
        }
        facts.add(new JobFacts.Fact(request, wire));
        Instant at = request.getOccurredAt();
        switch (request.getPayload()) {
            case JobSubmitted job -> {
                submission = job;
                budget = budget == null ? job.getBudget() : budget;
                cluster = cluster == null ? job.getCluster() : cluster;
                append("JobSubmitted", at, null, job);
            }
            case JobCancelRequested cancel -> {
                Map<String, Object> details = AvroJson.toMap(cancel);
                cancelRequests.add(details);
                append("JobCancelRequested", at, null, details);
            }
            default -> throw new IllegalArgumentException("not a job request: " + request.getPayload().getClass());
        }
    }

    /** A fact as kept: a request or an event. */
    void apply(JobFacts.Fact fact) {
        switch (fact.value()) {
            case JobRequest request -> request(request, fact.wire());
            case JobEvent event -> event(event, fact.wire());
            default -> throw new IllegalArgumentException("not a job fact: " + fact.value().getClass().getName());
        }
    }

    synchronized List<JobFacts.Fact> facts() {
        return List.copyOf(facts);
    }

    @Override
    public JobRecord whole(JobBook.WireReader wireReader) {
        return this;
    }

    /** A fact of job-events, with its bytes when read from the log. */
    synchronized void event(JobEvent event, byte[] wire) {
        if (!seenEvents.add(event.getEventId())) {
            return;
        }
        facts.add(new JobFacts.Fact(event, wire));
        Object payload = event.getPayload();
        Instant at = event.getOccurredAt();
        if (event.getStateAfter() != null) {
            state = event.getStateAfter();
            seenByScheduler = true;
        }
        switch (payload) {
            case JobAccepted a -> {
                seenByScheduler = true;
                accepted = a;
                budget = a.getBudget();
                cluster = a.getCluster();
                chargeMode = a.getChargeMode().name();
            }
            case JobCancelled c -> {
                Map<String, Object> who = new LinkedHashMap<>();
                who.put("at", at.toString());
                who.putAll(AvroJson.toMap(c));
                cancellation = who;
            }
            case JobPlaced placed -> {
                placement = placed;
                placedAt = at;
                budget = placed.getBudget();
                cluster = placed.getCluster();
                chargeMode = placed.getChargeMode().name();
            }
            case JobRejected rejected -> {
                seenByScheduler = true;
                rejection = rejected;
            }
            case JobPreempted preempted -> {
                Map<String, Object> who = new LinkedHashMap<>();
                who.put("at", at.toString());
                who.putAll(AvroJson.toMap(preempted));
                preemptions.add(who);
            }
            default -> {
                // agent reports and verdicts: history only
            }
        }
        append(payload.getClass().getSimpleName(), at,
                event.getStateAfter() == null ? null : event.getStateAfter().name(),
                payload instanceof org.apache.avro.generic.IndexedRecord ? payload : Map.of());
    }

    private void append(String type, Instant at, String stateAfter, Object source) {
        history.add(new HistoryEntry(type, at, stateAfter, source, seq++));
    }

    /** The public view: state, contract, placement, preemptions and history. */
    public synchronized Map<String, Object> view() {
        JobState current = state == null ? JobState.WAITING : state;
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", id);
        view.put("state", current.name());
        view.put("seenByScheduler", seenByScheduler);
        view.put("budget", budget);
        view.put("cluster", cluster);
        if (submission != null) {
            view.put("submitter", submission.getSubmitter());
            view.put("submittedAt", submission.getSubmittedAt().toString());
            view.put("replicas", submission.getReplicas());
            view.put("gpusPerReplica", submission.getGpusPerReplica());
            view.put("gpus", submission.getReplicas() * submission.getGpusPerReplica());
            view.put("minRuntimeSeconds", submission.getMinRuntimeSeconds());
            view.put("resumable", submission.getResumable());
            view.put("priority", submission.getPriority());
            view.put("command", List.copyOf(submission.getCommand()));
            view.put("expectedDurationSeconds", submission.getExpectedDurationSeconds());
            view.put("checkpointGraceSeconds", submission.getCheckpointGraceSeconds());
        } else if (accepted != null) {
            view.put("submitter", accepted.getSubmitter());
            view.put("submittedAt", accepted.getQueuedAt().toString());
            view.put("replicas", accepted.getReplicas());
            view.put("gpusPerReplica", accepted.getGpusPerReplica());
            view.put("gpus", accepted.getReplicas() * accepted.getGpusPerReplica());
            view.put("minRuntimeSeconds", accepted.getMinRuntimeSeconds());
            view.put("resumable", accepted.getResumable());
            view.put("priority", accepted.getPriority());
            view.put("expectedDurationSeconds", accepted.getExpectedDurationSeconds());
        } else if (placement != null) {
            view.put("gpus", placement.getAssignments().stream().mapToInt(a -> a.getGpuIndices().size()).sum());
        }
        view.put("chargeMode", chargeMode != null ? chargeMode
                : submission == null ? null : submission.getMinRuntimeSeconds() > 0 ? "ALLOCATED" : "UNALLOCATED");
        if (placement != null) {
            Map<String, Object> placed = new LinkedHashMap<>();
            placed.put("current", current == JobState.RUNNING);
            placed.put("placedAt", placedAt.toString());
            placed.put("attempt", placement.getAttempt());
            placed.put("explanation", placement.getExplanation());
            placed.put("assignments", AvroJson.toJson(placement.getAssignments()));
            view.put("placement", placed);
            view.put("protectedUntil", current == JobState.RUNNING ? placement.getProtectedUntil().toString() : null);
        } else {
            view.put("placement", null);
            view.put("protectedUntil", null);
        }
        view.put("rejection", rejection == null ? null : AvroJson.toMap(rejection));
        view.put("cancelRequested", !cancelRequests.isEmpty());
        view.put("cancellation", cancellation);
        view.put("preemptions", List.copyOf(preemptions));
        view.put("history", historyLines());
        return view;
    }

    /**
     * Every fact of the job in order. job-requests and job-events are different topics, so replay
     * interleaves them freely: ordered by when the fact happened, then by arrival.
     */
    public synchronized List<Map<String, Object>> historyLines() {
        List<Map<String, Object>> lines = new ArrayList<>();
        history.stream()
                .sorted(Comparator.comparing(HistoryEntry::at).thenComparingLong(HistoryEntry::seq))
                .forEach(h -> {
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("type", h.type());
                    line.put("at", h.at().toString());
                    line.put("stateAfter", h.stateAfter());
                    line.put("details", h.details());
                    lines.add(line);
                });
        return lines;
    }

    /** GPUs the job holds per node while it runs (its current placement); empty otherwise. */
    public synchronized Map<String, Integer> gpusByNode() {
        if (state != JobState.RUNNING || placement == null) {
            return Map.of();
        }
        Map<String, Integer> byNode = new LinkedHashMap<>();
        placement.getAssignments().forEach(a -> byNode.merge(a.getNodeId(), a.getGpuIndices().size(), Integer::sum));
        return byNode;
    }

    /** The node and replica of each assignment of the latest placement (running or not), for its output. */
    public synchronized Map<Integer, String> nodesByReplica() {
        if (placement == null) {
            return Map.of();
        }
        Map<Integer, String> byReplica = new java.util.TreeMap<>();
        placement.getAssignments().forEach(a -> byReplica.put(a.getReplicaIndex(), a.getNodeId()));
        return byReplica;
    }

    /** A line of the job list. */
    public record Summary(String id, String state, boolean seenByScheduler, String budget, String cluster,
                          Integer gpus, Instant submittedAt, String submitter) {
    }

    @Override
    public synchronized Summary summary() {
        Integer gpus = submission != null ? (Integer) (submission.getReplicas() * submission.getGpusPerReplica())
                : accepted != null ? (Integer) (accepted.getReplicas() * accepted.getGpusPerReplica()) : null;
        Instant submittedAt = submission != null ? submission.getSubmittedAt()
                : accepted != null ? accepted.getQueuedAt() : null;
        return new Summary(id, (state == null ? JobState.WAITING : state).name(), seenByScheduler, budget, cluster,
                gpus, submittedAt, submission != null ? submission.getSubmitter() : accepted != null ? accepted.getSubmitter() : null);
    }

    /** The leaf the job is charged to (from the submission, else the scheduler's events); null if neither came yet. */
    public synchronized String budget() {
        return submission != null ? submission.getBudget() : budget;
    }

    /** Who submitted it (the verified principal), null before the submission is seen. */
    public synchronized String submitter() {
        return submission == null ? null : submission.getSubmitter();
    }

    public synchronized boolean isFinished() {
        return state == JobState.COMPLETED || state == JobState.FAILED || state == JobState.REJECTED
                || state == JobState.CANCELLED;
    }
}
