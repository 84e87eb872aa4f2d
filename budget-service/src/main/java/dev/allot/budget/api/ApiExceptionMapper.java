package dev.allot.budget.api;

import dev.allot.budget.tree.Violation;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Errors as {@code {"status":422,"field":"share","message":"..."}}, the framework's own refusals (405, 415,
 * 406, 404 of a resource) included, so a client parses one shape whatever went wrong.
 */
public class ApiExceptionMapper {

    @ServerExceptionMapper
    public Response map(ApiException e) {
        return error(e.violation());
    }

    @ServerExceptionMapper
    public Response map(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        Response.ResponseBuilder answer = Response.fromResponse(error(new Violation(status, fieldOf(e), messageOf(e))));
        if (e instanceof NotAllowedException && e.getResponse().getHeaderString(HttpHeaders.ALLOW) != null) {
            answer.header(HttpHeaders.ALLOW, e.getResponse().getHeaderString(HttpHeaders.ALLOW));
        }
        return answer.build();
    }

    private static String fieldOf(WebApplicationException e) {
        return switch (e) {
            case NotAllowedException ignored -> "method";
            case NotSupportedException ignored -> "Content-Type";
            case NotAcceptableException ignored -> "Accept";
            case NotFoundException ignored -> "path";
            default -> null;
        };
    }

    private static String messageOf(WebApplicationException e) {
        return switch (e) {
            case NotAllowedException n -> "method not allowed here; allowed: " + n.getResponse().getAllowedMethods();
            case NotSupportedException ignored -> "the body must be application/json";
            case NotAcceptableException ignored -> "this API answers application/json";
            case NotFoundException ignored -> "no such resource";
            default -> e.getMessage() == null ? Response.Status.fromStatusCode(e.getResponse().getStatus()) + "" : e.getMessage();
        };
    }

    public static Response error(Violation v) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", v.status());
        body.put("field", v.field());
        body.put("message", v.message());
        return Response.status(v.status()).type(MediaType.APPLICATION_JSON).entity(body).build();
    }
}
