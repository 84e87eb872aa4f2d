package dev.allot.budget.ui;

import dev.allot.budget.LogView;
import dev.allot.budget.api.ApiException;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * What the /ui pages need beyond the public API (/budgets, /queue, /jobs): owed against delivered
 * hours per account over 7 days, as figures and as an SVG chart, and the GPU timeline as SVG and
 * JSON. Everything is drawn on the server: the pages load no library.
 */
@Path("/ui/api")
@Tag(name = "dashboard")
public class DashboardResource {

    static final String SVG = "image/svg+xml";

    @Inject
    LogView view;
    @Inject
    DashboardFeed feed;

    @GET
    @Path("/clusters")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Clusters known (capacity from NodeRegistered, or placements seen), with their GPUs")
    public Map<String, Object> clusters() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("clusters", new java.util.TreeMap<>(view.capacity().gpusPerCluster()));
        return body;
    }

    @GET
    @Path("/owed")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Owed and delivered GPU-hours of every account over the last 7 days, and delivered/owed")
    public Map<String, Object> owed(@QueryParam("cluster") String cluster) {
        require(cluster, "cluster");
        long now = System.currentTimeMillis();
        BudgetTree tree = view.tree();
        Map<String, Object> accounts = new LinkedHashMap<>();
        long first = 0;
        for (String account : allAccounts(tree)) {
            OwedChart.Figures f = figures(tree, cluster, account, now);
            first = f.firstHour();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("owedGpuHours", f.team().owedGpuHours());
            row.put("deliveredGpuHours", f.team().deliveredGpuHours());
            row.put("entitledGpuHours", f.team().entitledGpuHours());
            row.put("deliveredOverOwed", f.team().owedAnything() ? f.team().ratio() : null);
            accounts.put(account, row);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("cluster", cluster);
        body.put("from", Instant.ofEpochMilli(first).toString());
        body.put("to", Instant.ofEpochMilli(now).toString());
        body.put("accounts", accounts);
        return body;
    }

    @GET
    @Path("/owed.svg")
    @Produces(SVG)
    @Operation(summary = "Hourly chart of one account's owed against delivered GPU-hours over the last 7 days")
    public String owedChart(@QueryParam("cluster") String cluster, @QueryParam("account") String account) {
        require(cluster, "cluster");
        require(account, "account");
        BudgetTree tree = view.tree();
        if (!tree.exists(account)) {
            throw new ApiException(Violation.notFound("account", "no account " + account));
        }
        return OwedChart.svg(figures(tree, cluster, account, System.currentTimeMillis()));
    }

    @GET
    @Path("/timeline.svg")
    @Produces(SVG)
    @Operation(summary = "Who ran on which GPU of which node over the last hours, coloured by team, preemptions,"
            + " drains and lost nodes marked")
    public String timeline(@QueryParam("cluster") String cluster, @QueryParam("hours") @DefaultValue("2") double hours) {
        require(cluster, "cluster");
        long to = System.currentTimeMillis();
        long from = span(to, hours);
        return TimelineSvg.svg(cluster, feed.nodes().rows(cluster, to), feed.timeline().between(cluster, from, to), from, to);
    }

    @GET
    @Path("/timeline")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The GPU timeline's data: nodes with their marks and GPU runs in the period")
    public Map<String, Object> timelineData(@QueryParam("cluster") String cluster,
                                            @QueryParam("hours") @DefaultValue("2") double hours) {
        require(cluster, "cluster");
        long to = System.currentTimeMillis();
        long from = span(to, hours);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("cluster", cluster);
        body.put("from", Instant.ofEpochMilli(from).toString());
        body.put("to", Instant.ofEpochMilli(to).toString());
        body.put("nodes", feed.nodes().rows(cluster, to));
        body.put("runs", feed.timeline().between(cluster, from, to));
        return body;
    }

    private static long span(long to, double hours) {
        if (!(hours > 0) || hours > 48) {
            throw new ApiException(Violation.badRequest("hours", "hours must be > 0 and at most 48"));
        }
        return to - (long) (hours * 3_600_000L);
    }

    private OwedChart.Figures figures(BudgetTree tree, String cluster, String account, long now) {
        List<String> members = new ArrayList<>();
        for (String a : feed.demand().accounts(cluster)) {
            if (a.equals(account) || a.startsWith(account + "/")) {
                members.add(a);
            }
        }
        return OwedChart.figures(feed.demand(), cluster, account, members, tree.fractionOfCluster(account),
                view.capacity().gpus(cluster), now);
    }

    private static List<String> allAccounts(BudgetTree tree) {
        TreeSet<String> all = new TreeSet<>();
        List<String> todo = new ArrayList<>(tree.roots());
        while (!todo.isEmpty()) {
            String a = todo.remove(todo.size() - 1);
            all.add(a);
            todo.addAll(tree.children(a));
        }
        return new ArrayList<>(all);
    }

    private static void require(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new ApiException(Violation.badRequest(field, field + " is required"));
        }
    }
}
