package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.auth.AccessPolicy;
import dev.allot.budget.auth.Authentication;
import dev.allot.budget.auth.Caller;
import dev.allot.budget.jobs.JobRecord;
import dev.allot.budget.kafka.EventPublisher;
import dev.allot.budget.kafka.WriteDeadline;
import dev.allot.budget.kafka.KafkaSettings;
import dev.allot.budget.kafka.LogProjector;
import dev.allot.budget.tree.BudgetPath;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import dev.allot.core.contract.Contract;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Job submission for people and scripts, and the job view.
 *
 * <p>POST checks the shape of the request and that the budget is a leaf of the tree; the rules that
 * need the scheduler's view (the account on that cluster, the cluster's size) are the scheduler's and
 * come back as JobRejected. The answer (202) is sent once Kafka acknowledged the JobSubmitted; the
 * submission is then recorded in this instance's job view at once (the log consumer later applies
 * the same event id as a no-op), so a GET right after the POST finds the job, as WAITING until the
 * scheduler says otherwise.
 */
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "jobs")
public class JobResource {

    static final String SUBMITTER_HEADER = "X-Allot-Submitter";
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    private static final Pattern CLUSTER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    /**
     * The most a job may ask to checkpoint in when it is preempted or drained (its GPUs stay held that long
     * past the decision); the scheduler caps at the same figure (docs/rules.md).
     */
    static final int MAX_CHECKPOINT_GRACE_SECONDS = 300;

    @Inject
    LogView view;

    @Inject
    LogProjector projector;

    @Inject
    EventPublisher publisher;

    @Inject
    KafkaSettings settings;

    @Inject
    MeterRegistry metrics;

    @Inject
    Authentication authentication;

    /** Limits of a submission, refused (400 naming the field) before anything is written. */
    static final int MAX_COMMAND_ARGS = 1024;
    static final int MAX_COMMAND_CHARS = 32 * 1024;
    static final int MAX_ENV_ENTRIES = 256;
    static final int MAX_ENV_CHARS = 32 * 1024;
    static final int MAX_REASON_CHARS = 1024;
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    @POST
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Submit a job: {budget, cluster, replicas, gpusPerReplica, minRuntimeSeconds, resumable,"
            + " command, priority?, env?, secretEnv?, expectedDurationSeconds?, checkpointGraceSeconds?, submitter?, id?};"
            + " 202 {id} once in the log")
    public CompletionStage<Response> submit(@HeaderParam(SUBMITTER_HEADER) String submitterHeader,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = SubmitRequest.class),
                    example = "{\"budget\":\"lab/team-a\",\"cluster\":\"local\",\"replicas\":1,\"gpusPerReplica\":2,"
                            + "\"minRuntimeSeconds\":60,\"resumable\":true,\"command\":[\"sleep\",\"3\"]}"))
            String body) {
        Caller caller = authentication.caller();
        AccessPolicy.claimedName(caller, SUBMITTER_HEADER, submitterHeader).ifPresent(ApiException::raise);
        JobSubmitted job = readSubmission(JsonBody.parse(body), caller);
        WriteDeadline deadline = WriteDeadline.after(settings.writeTimeout());
        if (!projector.awaitCaughtUp(deadline.remaining())) {
            throw new ApiException(new Violation(503, "budget", "the budget tree is still being read from the log"));
        }
        BudgetTree tree = view.tree();
        if (!tree.exists(job.getBudget())) {
            throw new ApiException(Violation.unprocessable("budget", "unknown budget account '" + job.getBudget() + "'"));
        }
        if (!tree.children(job.getBudget()).isEmpty()) {
            throw new ApiException(Violation.unprocessable("budget", "jobs are charged to a leaf; '" + job.getBudget()
                    + "' has children " + tree.children(job.getBudget())));
        }
        AccessPolicy.maySubmit(caller, tree, job.getBudget()).ifPresent(ApiException::raise);
        if (!view.capacity().knows(job.getCluster())) {
            throw new ApiException(Violation.unprocessable("cluster", "no node of cluster '" + job.getCluster()
                    + "' is known, so no scheduler would place the job; known clusters: "
                    + view.capacity().gpusPerCluster().keySet()));
        }
        if (view.jobs().exists(job.getJobId())) {
            throw new ApiException(Violation.conflict("id", "job id '" + job.getJobId() + "' is already taken"));
        }
        JobRequest request = JobRequest.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(job.getSubmittedAt())
                .setPayload(job)
                .build();
        return publisher.publish(Topics.JOB_REQUESTS, job.getJobId(), request)
                .orTimeout(deadline.remainingMillis(), TimeUnit.MILLISECONDS)
                .handle((acked, error) -> {
                    if (error != null) {
                        return ApiExceptionMapper.error(new Violation(503, "id", "Kafka did not acknowledge the"
                                + " submission within " + settings.writeTimeout() + ": " + EventPublisher.reason(error)
                                + "; submitting again with the same id is safe"));
                    }
                    view.jobs().request(request);
                    metrics.counter("allot.jobs.submitted").increment();
                    // no Location header: resolving it needs the request, and this runs on Kafka's I/O thread
                    return Response.accepted(Map.of("id", job.getJobId())).build();
                });
    }

    /** The body of a submission, for the OpenAPI document (the body is read field by field, see JsonBody). */
    @Schema(name = "SubmitRequest")
    public record SubmitRequest(
            @Schema(required = true, description = "Leaf budget path charged", example = "lab/team-a") String budget,
            @Schema(required = true, example = "local") String cluster,
            @Schema(required = true, minimum = "1", description = "Gang size N; each replica on its own node")
            int replicas,
            @Schema(required = true, minimum = "1", description = "GPUs per replica G") int gpusPerReplica,
            @Schema(required = true, minimum = "0", maximum = "" + Contract.MAX_MIN_RUNTIME_SECONDS,
                    description = "Minimum runtime of the contract; 0 = unallocated (free, never protected)")
            long minRuntimeSeconds,
            @Schema(description = "Can be preempted and resumed (default false)") boolean resumable,
            @Schema(required = true, description = "argv of each replica, non-empty") List<String> command,
            @Schema(description = "Priority within the team, higher first (default 0)") Integer priority,
            @Schema(description = "Extra environment of each replica") Map<String, String> env,
            @Schema(description = "Secret environment by reference: variable -> name of a secret in the node agents'"
                    + " store (read on the node; the value never passes through Allot)") Map<String, String> secretEnv,
            @Schema(description = "Estimated run time, for backfill") Long expectedDurationSeconds,
            @Schema(minimum = "0", maximum = "" + MAX_CHECKPOINT_GRACE_SECONDS, description = "Seconds between the"
                    + " stop notice (SIGTERM and $ALLOT_PREEMPT_NOTICE_FILE) and the SIGKILL when the job is preempted"
                    + " or drained, to checkpoint in; default the scheduler's (30 s)") Integer checkpointGraceSeconds,
            @Schema(description = "Optional; must be the caller's own name: the token's name is recorded") String submitter,
            @Schema(description = "Client-chosen job id (1-128 of [A-Za-z0-9._:-]); a UUID when absent") String id) {
    }

    static JobSubmitted readSubmission(JsonBody json, Caller caller) {
        String id = json.text("id");
        if (id == null) {
            id = UUID.randomUUID().toString();
        } else if (!JOB_ID.matcher(id).matches()) {
            throw JsonBody.bad("id", "id must be 1-128 of [A-Za-z0-9._:-], starting with a letter or digit");
        }
        String budget = json.requiredText("budget");
        BudgetPath.problem(budget).ifPresent(problem -> {
            throw JsonBody.bad("budget", "budget " + problem);
        });
        String cluster = json.requiredText("cluster");
        if (!CLUSTER.matcher(cluster).matches()) {
            throw JsonBody.bad("cluster", "cluster must be 1-63 of [A-Za-z0-9._-], starting with a letter or digit");
        }
        int replicas = (int) json.requiredWhole("replicas", 1, 4096);
        int gpusPerReplica = (int) json.requiredWhole("gpusPerReplica", 1, 1024);
        long minRuntime = json.requiredWhole("minRuntimeSeconds", 0, Contract.MAX_MIN_RUNTIME_SECONDS);
        Boolean resumable = json.bool("resumable");
        List<String> command = json.strings("command");
        if (command == null || command.isEmpty() || command.get(0).isBlank()) {
            throw JsonBody.bad("command", "command is required: a non-empty argv array, e.g. [\"sleep\",\"3\"]");
        }
        checkCommand(command);
        Long priority = json.whole("priority", Integer.MIN_VALUE, Integer.MAX_VALUE);
        Map<String, String> env = json.stringMap("env");
        if (env != null) {
            checkEnv(env);
        }
        Map<String, String> secretEnv = SecretEnv.read(json, env);
        Long expected = json.whole("expectedDurationSeconds", 0, Long.MAX_VALUE / 1000);
        Long grace = json.whole("checkpointGraceSeconds", 0, MAX_CHECKPOINT_GRACE_SECONDS);
        AccessPolicy.claimedName(caller, "submitter", json.text("submitter")).ifPresent(ApiException::raise);
        String submitter = caller.name();
        return JobSubmitted.newBuilder()
                .setJobId(id)
                .setBudget(budget)
                .setSubmitter(submitter)
                .setCluster(cluster)
                .setReplicas(replicas)
                .setGpusPerReplica(gpusPerReplica)
                .setMinRuntimeSeconds(minRuntime)
                .setResumable(resumable != null && resumable)
                .setPriority(priority == null ? 0 : priority.intValue())
                .setCommand(command)
                .setEnv(env == null ? Map.of() : env)
                .setSecretEnv(secretEnv)
                .setExpectedDurationSeconds(expected)
                .setCheckpointGraceSeconds(grace == null ? null : grace.intValue())
                // milliseconds, as the log keeps it: this instance's view reads as every other's
                .setSubmittedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS))
                .build();
    }

    private static void checkCommand(List<String> command) {
        if (command.size() > MAX_COMMAND_ARGS) {
            throw JsonBody.bad("command", "command has " + command.size() + " arguments; at most " + MAX_COMMAND_ARGS);
        }
        long chars = command.stream().mapToLong(String::length).sum();
        if (chars > MAX_COMMAND_CHARS) {
            throw JsonBody.bad("command", "command is " + chars + " characters; at most " + MAX_COMMAND_CHARS);
        }
        if (command.stream().anyMatch(arg -> arg.indexOf('\0') >= 0)) {
            throw JsonBody.bad("command", "command arguments cannot contain NUL characters");
        }
    }

    /** The agent sets CUDA_VISIBLE_DEVICES and ALLOT_* itself: a job cannot choose its GPUs or its token. */
    private static void checkEnv(Map<String, String> env) {
        if (env.size() > MAX_ENV_ENTRIES) {
            throw JsonBody.bad("env", "env has " + env.size() + " entries; at most " + MAX_ENV_ENTRIES);
        }
        long chars = 0;
        for (Map.Entry<String, String> entry : env.entrySet()) {
            String name = entry.getKey();
            if (!ENV_NAME.matcher(name).matches()) {
                throw JsonBody.bad("env", "env name '" + name + "' must be 1-128 of [A-Za-z0-9_], not starting with a digit");
            }
            if (name.equals("CUDA_VISIBLE_DEVICES") || name.startsWith("ALLOT_")) {
                throw JsonBody.bad("env", "env name '" + name + "' is reserved: the node agent sets it");
            }
            if (entry.getValue().indexOf('\0') >= 0) {
                throw JsonBody.bad("env", "env." + name + " cannot contain NUL characters");
            }
            chars += name.length() + entry.getValue().length();
        }
        if (chars > MAX_ENV_CHARS) {
            throw JsonBody.bad("env", "env is " + chars + " characters; at most " + MAX_ENV_CHARS);
        }
    }

    @GET
    @Operation(summary = "Jobs the log knows, newest submission first, filtered by state, budget, cluster and submitter")
    public Map<String, Object> list(@QueryParam("state") String state, @QueryParam("budget") String budget,
                                    @QueryParam("cluster") String cluster,
                                    @QueryParam("submitter") String submitter,
                                    @QueryParam("limit") String limitParam) {
        int limit = limitOf(limitParam);
        if (state != null && java.util.Arrays.stream(dev.allot.schemas.JobState.values())
                .noneMatch(s -> s.name().equals(state))) {
            throw JsonBody.bad("state", "state must be one of "
                    + java.util.Arrays.toString(dev.allot.schemas.JobState.values()));
        }
        // newest submission first; a job whose submission was never seen last. Only the page is sorted: a heap of
        // `limit` lines over the matching ones, not a sort of every job the log has mentioned
        Comparator<JobRecord.Summary> newestFirst = Comparator.comparing(JobRecord.Summary::submittedAt,
                Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
                .thenComparing(JobRecord.Summary::id);
        PriorityQueue<JobRecord.Summary> page = new PriorityQueue<>(newestFirst.reversed());
        int[] count = {0};
        view.jobs().summaries()
                .filter(j -> state == null || state.equals(j.state()))
                .filter(j -> budget == null || budget.equals(j.budget()))
                .filter(j -> cluster == null || cluster.equals(j.cluster()))
                .filter(j -> submitter == null || submitter.equals(j.submitter()))
                .forEach(j -> {
                    count[0]++;
                    page.add(j);
                    if (page.size() > limit) {
                        page.poll();
                    }
                });
        List<JobRecord.Summary> jobs = new ArrayList<>(page);
        jobs.sort(newestFirst);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("count", count[0]);
        body.put("jobs", jobs);
        return body;
    }

    private static int limitOf(String text) {
        if (text == null) {
            return 100;
        }
        try {
            int limit = Integer.parseInt(text.trim());
            if (limit >= 1 && limit <= 10_000) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // refused below
        }
        throw JsonBody.bad("limit", "limit must be a whole number between 1 and 10000, got '" + text + "'");
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "A job's state (WAITING|RUNNING|COMPLETED|FAILED|REJECTED|CANCELLED), placement,"
            + " protection, preemptions and history; while it waits or runs, its place in the scheduler's latest"
            + " queue snapshot (position, reason, accounts ahead, protected until); while it waits, its expected start"
            + " (at, basis DECLARED|LEARNED|DEFAULT|BEYOND_HORIZON, beyondHorizon, horizonSeconds, estimatedAt,"
            + " lowConfidence, note), null until the scheduler estimated it")
    public Map<String, Object> job(@PathParam("id") String id) {
        Map<String, Object> job = view.jobs().find(id).map(JobRecord::view)
                .orElseThrow(() -> new ApiException(Violation.notFound("id", "unknown job '" + id + "'")));
        job.put("queue", QueuePlace.of(view.queues(), (String) job.get("cluster"), id, (String) job.get("state")));
        job.put("expectedStart", QueuePlace.expectedStart(view.queues(), (String) job.get("cluster"), id,
                (String) job.get("state")));
        return job;
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Ask the scheduler to cancel a job (JobCancelRequested); 202 once in the log")
    public Response cancel(@PathParam("id") String id, @HeaderParam(SUBMITTER_HEADER) String requestedBy,
                           @QueryParam("reason") String reason) {
        JobRecord job = view.jobs().find(id)
                .orElseThrow(() -> new ApiException(Violation.notFound("id", "unknown job '" + id + "'")));
        Caller caller = authentication.caller();
        AccessPolicy.claimedName(caller, SUBMITTER_HEADER, requestedBy).ifPresent(ApiException::raise);
        if (reason != null && reason.length() > MAX_REASON_CHARS) {
            throw JsonBody.bad("reason", "reason is " + reason.length() + " characters; at most " + MAX_REASON_CHARS);
        }
        AccessPolicy.mayCancel(caller, view.tree(), job.budget(), job.submitter()).ifPresent(ApiException::raise);
        if (job.isFinished()) {
            throw new ApiException(Violation.conflict("id", "job '" + id + "' has already finished"));
        }
        WriteDeadline deadline = WriteDeadline.after(settings.writeTimeout());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        JobRequest request = JobRequest.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(now)
                .setPayload(JobCancelRequested.newBuilder()
                        .setJobId(id)
                        .setRequestedBy(caller.name())
                        .setReason(reason)
                        .setRequestedAt(now)
                        .build())
                .build();
        try {
            publisher.publish(Topics.JOB_REQUESTS, id, request)
                    .get(deadline.remainingMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(new Violation(503, "id", "interrupted"));
        } catch (Exception e) {
            throw new ApiException(new Violation(503, "id", "Kafka did not acknowledge the cancel request within "
                    + settings.writeTimeout() + ": " + EventPublisher.reason(e)));
        }
        view.jobs().request(request);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("cancelRequested", true);
        return Response.accepted(body).build();
    }
}
