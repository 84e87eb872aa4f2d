package dev.allot.budget.api;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;
import java.util.Optional;

/**
 * What is refused before any resource runs, on the request as written: URIs over {@value #MAX_URI} characters
 * (414), bodies declared over {@value #MAX_BODY} bytes (413), and paths that would mean something else once
 * normalised or decoded (400 naming {@code path}): {@code .} and {@code ..} segments (plain or %2E-encoded),
 * an encoded separator ({@code %2F}, {@code %5C}), {@code //}, a trailing {@code /}. The HTTP layer would
 * otherwise resolve {@code /budgets/a/../evil} to {@code /budgets/evil}. A path no resource serves is a JSON 404.
 */
@ApplicationScoped
public class RequestGuard {

    public static final int MAX_URI = 8192;
    public static final int MAX_BODY = 128 * 1024;

    void filters(@Observes Filters filters) {
        filters.register(this::check, 1000);
    }

    void fallback(@Observes Router router) {
        router.route().order(Integer.MAX_VALUE).handler(ctx -> refuse(ctx, 404, "path",
                "no such resource: " + ctx.request().method() + " " + ctx.request().path()
                        + " (the API is /budgets, /jobs, /queue; its document /q/openapi)"));
    }

    private void check(RoutingContext ctx) {
        String uri = ctx.request().uri();
        if (uri.length() > MAX_URI) {
            refuse(ctx, 414, "path", "the URI is " + uri.length() + " characters; at most " + MAX_URI);
            return;
        }
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && declaredOver(length)) {
            refuse(ctx, 413, "body", "the body is " + length + " bytes; at most " + MAX_BODY);
            return;
        }
        Optional<String> problem = pathProblem(ctx.request().path());
        if (problem.isPresent()) {
            refuse(ctx, 400, "path", problem.get());
            return;
        }
        ctx.next();
    }

    private static boolean declaredOver(String length) {
        try {
            return Long.parseLong(length.trim()) > MAX_BODY;
        } catch (NumberFormatException e) {
            return false; // the HTTP layer refuses a malformed length itself
        }
    }

    /** Why a raw request path is refused, or empty; the framework's own /q/ paths and the /ui files are left alone. */
    static Optional<String> pathProblem(String raw) {
        if (raw == null || raw.equals("/") || raw.startsWith("/q/") || raw.equals("/ui") || raw.startsWith("/ui/")) {
            return Optional.empty();
        }
        String lower = raw.toLowerCase(Locale.ROOT);
        if (lower.contains("%2f") || lower.contains("%5c") || raw.contains("\\")) {
            return Optional.of("'" + raw + "': an encoded '/' or '\\' is not a path separator here; paths are"
                    + " written segment by segment");
        }
        if (raw.contains("//")) {
            return Optional.of("'" + raw + "': empty segment ('//')");
        }
        if (raw.endsWith("/")) {
            return Optional.of("'" + raw + "': trailing '/'");
        }
        for (String segment : lower.split("/")) {
            String decoded = segment.replace("%2e", ".");
            if (decoded.equals(".") || decoded.equals("..")) {
                return Optional.of("'" + raw + "': '" + segment + "' segments are refused, not resolved");
            }
        }
        return Optional.empty();
    }

    private static void refuse(RoutingContext ctx, int status, String field, String message) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(new JsonObject().put("status", status).put("field", field).put("message", message).encode());
    }
}
