package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.jobs.JobRecord;
import dev.allot.budget.tree.Violation;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** A job's history alone: every fact of its life in order, without the rest of the job view. */
@Path("/jobs/{id}/history")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "jobs")
public class JobHistoryResource {

    @Inject
    LogView view;

    @GET
    @Operation(summary = "Every event of the job in order: submission, cancel requests, the scheduler's verdicts"
            + " and the node agents' reports, with their details")
    public Map<String, Object> history(@PathParam("id") String id) {
        JobRecord job = view.jobs().find(id)
                .orElseThrow(() -> new ApiException(Violation.notFound("id", "unknown job '" + id + "'")));
        List<Map<String, Object>> events = job.historyLines();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("state", job.summary().state());
        body.put("count", events.size());
        body.put("events", events);
        return body;
    }
}
