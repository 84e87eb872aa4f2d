package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.hours.HourlyLedger;
import dev.allot.budget.hours.OwedLedger;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import dev.allot.core.budget.Shares;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * An account's hourly series (charged, unallocated, demanded, entitled, owed GPU-hours) over the
 * last days, and the period's owed vs delivered totals; the account sums its descendants.
 */
@Path("/usage")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "usage")
public class UsageResource {

    static final int MAX_DAYS = 7;

    @Inject
    LogView view;

    @GET
    @Path("/{path: .+}")
    @Operation(summary = "Hourly charged / unallocated / demanded / entitled / owed GPU-hours of an account over"
            + " the last `days` days (1-7, the hour in progress included), with the period's totals")
    public Map<String, Object> usage(@PathParam("path") String path, @QueryParam("cluster") String cluster,
                                     @QueryParam("days") @DefaultValue("7") int days) {
        BudgetTree tree = view.tree();
        if (!tree.exists(path)) {
            throw new ApiException(Violation.notFound("path", "unknown budget account '" + path
                    + "'; GET /budgets lists the tree"));
        }
        if (days < 1 || days > MAX_DAYS) {
            throw new ApiException(Violation.badRequest("days", "days must be between 1 and " + MAX_DAYS
                    + " (the lookback window); got " + days));
        }
        String on = cluster == null || cluster.isBlank() ? onlyCluster() : cluster;
        long last = HourlyLedger.hourOf(Instant.now().toEpochMilli());
        long first = last - (days * 24L - 1) * HourlyLedger.HOUR;
        return OwedLedger.render(on, path, view.hours().series(on, path, first, last + HourlyLedger.HOUR),
                entitledPerHour(view, path, on), createdAt(tree, path), true);
    }

    /** When the account was first defined (what it is owed counts from then). */
    static long createdAt(BudgetTree tree, String path) {
        return tree.account(path).map(a -> a.createdAt() == null ? Long.MIN_VALUE : a.createdAt().toEpochMilli())
                .orElse(Long.MIN_VALUE);
    }

    /** Entitled GPU-seconds per hour under today's tree and capacity; null when the cluster's size is unknown. */
    static Double entitledPerHour(LogView view, String path, String cluster) {
        Integer capacity = view.capacity().gpusPerCluster().get(cluster);
        return capacity == null ? null : Shares.entitledGpus(view.tree().fractionOfCluster(path), capacity) * 3600.0;
    }

    private String onlyCluster() {
        Set<String> clusters = new TreeSet<>(view.capacity().gpusPerCluster().keySet());
        clusters.addAll(view.hours().clusters());
        if (clusters.size() == 1) {
            return clusters.iterator().next();
        }
        throw new ApiException(Violation.badRequest("cluster", clusters.isEmpty()
                ? "cluster is required (no cluster is known yet), e.g. ?cluster=local"
                : "cluster is required when there are several: one of " + clusters));
    }
}
