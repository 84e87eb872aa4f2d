package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.auth.AccessPolicy;
import dev.allot.budget.auth.Authentication;
import dev.allot.budget.auth.Caller;
import dev.allot.budget.auth.Principals;
import dev.allot.budget.kafka.EventPublisher;
import dev.allot.budget.kafka.WriteDeadline;
import dev.allot.budget.kafka.KafkaSettings;
import dev.allot.budget.kafka.LogProjector;
import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.BudgetPath;
import dev.allot.budget.tree.BudgetRules;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The budget tree: read it, define or change an account's share, remove an account.
 *
 * <p>Read-your-writes: a write is validated against the projection, produced to {@code budgets} with
 * acks=all, and answered only once this instance's log consumer has applied that very offset. The
 * projection is therefore only ever fed by the log (in log order, whoever wrote), and a client that
 * got 200 sees its change in the next GET. Writes of one instance are serialised, so two concurrent
 * requests cannot both pass validation against the same stale tree (e.g. a child added while its
 * parent is removed). If the projection has not caught up within the write timeout the answer is 202:
 * the change is in the log but not yet visible.
 */
@Path("/budgets")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "budgets")
public class BudgetResource {

    static final String USER_HEADER = "X-Allot-User";

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

    /** The body of a PUT, for the OpenAPI document (the body is read field by field, see JsonBody). */
    @Schema(name = "ShareRequest")
    public record ShareRequest(
            @Schema(required = true, description = "Weight among siblings, " + BudgetRules.MIN_SHARE + " to "
                    + BudgetRules.MAX_SHARE, example = "1") double share,
            @Schema(description = "Optional; must equal the path without its last segment (null for a root)")
            String parent,
            @Schema(description = "Who may change the accounts beneath this one: user names or group:NAME;"
                    + " kept as they are when absent") List<String> owners,
            @Schema(description = "Who may submit jobs charged to this account's leaves: user names or group:NAME;"
                    + " kept as they are when absent") List<String> members,
            @Schema(description = "Optional; must be the caller's own name (the token's): it is what is recorded")
            String definedBy) {
    }

    private static final ReentrantLock WRITES = new ReentrantLock();

    @GET
    @Operation(summary = "The budget tree with shares, fractions, entitlement, usage and ratio per cluster")
    public Map<String, Object> tree() {
        return new BudgetRenderer(view).wholeTree();
    }

    @GET
    @Path("/{path: .+}")
    @Operation(summary = "One account and its subtree")
    public Map<String, Object> account(@PathParam("path") String path) {
        BudgetRenderer renderer = new BudgetRenderer(view);
        if (!renderer.tree().exists(path)) {
            throw new ApiException(Violation.notFound("path", "unknown budget account '" + path + "'"));
        }
        return renderer.account(path);
    }

    @PUT
    @Path("/{path: .+}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Define an account or change its share: {\"share\": 1}. The parent is the path without"
            + " its last segment and must exist.")
    public Response define(@PathParam("path") String path, @HeaderParam(USER_HEADER) String user,
                           @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
                                   schema = @Schema(implementation = ShareRequest.class),
                                   example = "{\"share\": 1}")) String body) {
        Caller caller = authentication.caller();
        JsonBody json = JsonBody.parse(body);
        AccessPolicy.claimedName(caller, USER_HEADER, user).ifPresent(ApiException::raise);
        AccessPolicy.claimedName(caller, "definedBy", json.text("definedBy")).ifPresent(ApiException::raise);
        Double share = json.number("share");
        boolean parentGiven = json.present("parent");
        String declaredParent = json.text("parent");
        List<String> owners = principals(json, "owners");
        List<String> members = principals(json, "members");
        return write(path, caller, tree -> BudgetRules.checkDefine(tree, path, share, share != null, declaredParent,
                parentGiven), tree -> {
            Instant now = Instant.now();
            Optional<Account> current = tree.account(path);
            return BudgetEvent.newBuilder()
                    .setEventId(UUID.randomUUID().toString())
                    .setOccurredAt(now)
                    .setPayload(BudgetDefined.newBuilder()
                            .setPath(path)
                            .setParent(BudgetPath.parentOf(path))
                            .setShare(share)
                            .setEffectiveAt(now)
                            // a re-share keeps the creation time: what the account is owed counts from then
                            .setCreatedAt(current.map(Account::createdAt).orElse(now))
                            .setDefinedBy(caller.name())
                            .setOwners(owners != null ? owners : current.map(Account::owners).orElse(List.of()))
                            .setMembers(members != null ? members : current.map(Account::members).orElse(List.of()))
                            .build())
                    .build();
        }, "define");
    }

    @DELETE
    @Path("/{path: .+}")
    @Operation(summary = "Remove an account; it must have no children")
    public Response remove(@PathParam("path") String path, @HeaderParam(USER_HEADER) String user) {
        Caller caller = authentication.caller();
        AccessPolicy.claimedName(caller, USER_HEADER, user).ifPresent(ApiException::raise);
        return write(path, caller, tree -> BudgetRules.checkRemove(tree, path), tree -> {
            Instant now = Instant.now();
            return BudgetEvent.newBuilder()
                    .setEventId(UUID.randomUUID().toString())
                    .setOccurredAt(now)
                    .setPayload(BudgetRemoved.newBuilder().setPath(path).setEffectiveAt(now).setRemovedBy(caller.name()).build())
                    .build();
        }, "remove");
    }

    /** The owners or members of a PUT, null when the body leaves them as they are. */
    private static List<String> principals(JsonBody json, String field) {
        List<String> entries = json.strings(field);
        if (entries == null) {
            return null;
        }
        Principals.problem(entries).ifPresent(problem -> {
            throw JsonBody.bad(field, field + ": " + problem);
        });
        return Principals.distinct(entries);
    }

    /** Path syntax (400), then who may (403), then the tree's rules; only then is anything written. */
    private Response write(String path, Caller caller, Function<BudgetTree, Optional<Violation>> rules,
                           Function<BudgetTree, BudgetEvent> event, String kind) {
        BudgetPath.problem(path).ifPresent(problem -> {
            throw new ApiException(Violation.badRequest("path", "path " + problem));
        });
        WriteDeadline deadline = WriteDeadline.after(settings.writeTimeout());
        try {
            if (!WRITES.tryLock(deadline.remainingMillis(), TimeUnit.MILLISECONDS)) {
                throw new ApiException(new Violation(503, "path", "too many concurrent budget writes; retry"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(new Violation(503, "path", "interrupted"));
        }
        try {
            if (!projector.awaitCaughtUp(deadline.remaining())) {
                throw new ApiException(new Violation(503, "path",
                        "the budget tree is still being read from the log; retry shortly"));
            }
            BudgetTree tree = view.tree();
            AccessPolicy.mayChange(caller, tree, path).ifPresent(ApiException::raise);
            rules.apply(tree).ifPresent(ApiException::raise);
            RecordMetadata acked;
            try {
                acked = publisher.publish(Topics.BUDGETS, path, event.apply(tree))
                        .get(deadline.remainingMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new ApiException(new Violation(503, "path", "Kafka did not acknowledge the write within "
                        + settings.writeTimeout() + ": " + EventPublisher.reason(e)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApiException(new Violation(503, "path", "interrupted"));
            }
            metrics.counter("allot.budget.writes", "kind", kind).increment();
            boolean visible = projector.awaitApplied(acked.topic(), acked.partition(), acked.offset(),
                    deadline.remaining());
            Map<String, Object> body = new LinkedHashMap<>();
            if (visible && kind.equals("define") && view.tree().exists(path)) {
                body.putAll(new BudgetRenderer(view).account(path));
            } else {
                body.put("path", path);
                body.put("removed", kind.equals("remove"));
            }
            body.put("offset", acked.offset());
            body.put("visible", visible);
            return Response.status(visible ? 200 : 202).entity(body).build();
        } finally {
            WRITES.unlock();
        }
    }
}
