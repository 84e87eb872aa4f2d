package dev.allot.budget.api;

import dev.allot.budget.AvroJson;
import dev.allot.budget.LogView;
import dev.allot.budget.tree.Violation;
import dev.allot.schemas.QueueSnapshot;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** A cluster's queue as the scheduler last published it: positions, reasons, accounts ahead. */
@Path("/queue")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "queue")
public class QueueResource {

    @Inject
    LogView view;

    @GET
    @Operation(summary = "Waiting jobs in order with their reasons, then running jobs with their protection,"
            + " from the scheduler's latest QueueSnapshot of the cluster (empty entries and at=null before the first);"
            + " each waiting entry's expectedStart and expectedStartBasis (DECLARED|LEARNED|DEFAULT|BEYOND_HORIZON,"
            + " null until estimated), when they were estimated (estimatedAt) and the horizon (estimateHorizonSeconds)")
    public Map<String, Object> queue(@QueryParam("cluster") String cluster) {
        if (cluster == null || cluster.isBlank()) {
            throw new ApiException(Violation.badRequest("cluster", "cluster is required, e.g. /queue?cluster=local"));
        }
        Optional<QueueSnapshot> snapshot = view.queues().latest(cluster);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("cluster", cluster);
        body.put("at", snapshot.map(s -> s.getAt().toString()).orElse(null));
        body.put("estimatedAt", snapshot.map(s -> s.getEstimatedAt()).map(Object::toString).orElse(null));
        body.put("estimateHorizonSeconds", snapshot.map(s -> s.getEstimateHorizonSeconds()).orElse(null));
        body.put("entries", snapshot.map(s -> AvroJson.toJson(s.getEntries())).orElse(List.of()));
        return body;
    }
}
