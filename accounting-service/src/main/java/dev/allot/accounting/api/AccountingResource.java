package dev.allot.accounting.api;

import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.time.Instant;

/**
 * Read API. Times are ISO-8601 instants or epoch milliseconds. Account paths contain '/', so they
 * travel as query parameters. Figures in GPU-seconds (ledger totals in GPU-hours).
 */
@Path("/accounting")
@Produces(MediaType.APPLICATION_JSON)
public class AccountingResource {

    @Inject
    AccountingQueries queries;
    @Context
    UriInfo uri;

    /** Rolling usage (own + descendants) of an account over the window ending at asOf (default now). */
    @GET
    @Path("/usage")
    public Response usage(@QueryParam("cluster") String cluster, @QueryParam("account") String account,
                          @QueryParam("asOf") String asOf, @QueryParam(AccountingQueries.FORWARDED) @DefaultValue("false") boolean fwd) {
        require(account, "account");
        long at = time(asOf, System.currentTimeMillis());
        return queries.answer(cluster, uri, fwd, view -> view.usage(cluster, account, at));
    }

    /** Hourly rows (own + descendants) in [from, to) (default: the last 7 days). */
    @GET
    @Path("/history")
    public Response history(@QueryParam("cluster") String cluster, @QueryParam("account") String account,
                            @QueryParam("from") String from, @QueryParam("to") String to,
                            @QueryParam(AccountingQueries.FORWARDED) @DefaultValue("false") boolean fwd) {
        Period period = Period.of(account, from, to);
        return queries.answer(cluster, uri, fwd, view -> view.history(cluster, account, period.from, period.to));
    }

    /** The owed-hours ledger of an account over [from, to) (whole hours). */
    @GET
    @Path("/ledger")
    public Response ledger(@QueryParam("cluster") String cluster, @QueryParam("account") String account,
                           @QueryParam("from") String from, @QueryParam("to") String to,
                           @QueryParam(AccountingQueries.FORWARDED) @DefaultValue("false") boolean fwd) {
        Period period = Period.of(account, from, to);
        long f = period.from;
        long t = period.to;
        if (t <= f) {
            throw new WebApplicationException("to must be after from", 400);
        }
        if (t - f > 400L * 86_400_000L) {
            throw new WebApplicationException("period longer than 400 days", 400);
        }
        return queries.answer(cluster, uri, fwd, view -> view.ledger(cluster, account, f, t));
    }

    /** Every account of the tree with its rolling usage on the cluster, at once. */
    @GET
    @Path("/tree")
    public Response tree(@QueryParam("cluster") String cluster, @QueryParam("asOf") String asOf,
                         @QueryParam(AccountingQueries.FORWARDED) @DefaultValue("false") boolean fwd) {
        long at = time(asOf, System.currentTimeMillis());
        return queries.answer(cluster, uri, fwd, view -> view.tree(cluster, at));
    }

    /** [from, to) of a history or ledger request: to defaults to now, from to 7 days before to. */
    private record Period(long from, long to) {
        static Period of(String account, String from, String to) {
            require(account, "account");
            long t = time(to, System.currentTimeMillis());
            return new Period(time(from, t - 7 * 86_400_000L), t);
        }
    }

    private static void require(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new WebApplicationException(name + " is required", 400);
        }
    }

    static long time(String value, long fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return value.chars().allMatch(Character::isDigit) ? Long.parseLong(value) : Instant.parse(value).toEpochMilli();
        } catch (RuntimeException e) {
            throw new WebApplicationException("not a time (ISO-8601 instant or epoch ms): " + value, 400);
        }
    }
}
