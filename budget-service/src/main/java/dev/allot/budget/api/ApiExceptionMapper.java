package dev.allot.budget.api;

import dev.allot.budget.tree.Violation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Errors as {@code {"status":422,"field":"share","message":"..."}}. */
public class ApiExceptionMapper {

    @ServerExceptionMapper
    public Response map(ApiException e) {
        return error(e.violation());
    }

    public static Response error(Violation v) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", v.status());
        body.put("field", v.field());
        body.put("message", v.message());
        return Response.status(v.status()).type(MediaType.APPLICATION_JSON).entity(body).build();
    }
}
