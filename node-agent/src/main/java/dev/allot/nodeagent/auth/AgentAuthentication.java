package dev.allot.nodeagent.auth;

import dev.allot.nodeagent.AgentConfig;
import dev.allot.nodeagent.api.CheckpointResource;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every request to the agent's API (each JAX-RS resource) needs a credential, {@code Authorization: Bearer ...}:
 * <ul>
 *   <li>the agent API secret ({@link ServiceSecret}): the budget-service reading job output and node state;</li>
 *   <li>or a token of the identity provider (RS256, verified by smallrye-jwt with the key set, issuer and audience
 *       configured as for the budget-service) of a member of the operator or admin group: people on the node.</li>
 * </ul>
 * None or anything else is 401; a valid token of someone who is neither operator nor admin is 403. The checkpoint
 * callback is the exception: it takes the calling job's own {@code ALLOT_JOB_TOKEN}, checked by its resource.
 * Health and metrics are not JAX-RS resources and stay open. Authentication is lazy
 * ({@code quarkus.http.auth.proactive=false}): a JWT is parsed only when it is not the secret.
 */
@ApplicationScoped
public class AgentAuthentication {

    private static final Logger LOG = Logger.getLogger(AgentAuthentication.class);

    @Inject
    CurrentIdentityAssociation identities;

    @Inject
    AgentCaller caller;

    @Inject
    AgentConfig config;

    @ConfigProperty(name = "allot.auth.admin-group", defaultValue = "allot-admins")
    String adminGroup;

    @ConfigProperty(name = "allot.auth.operator-group", defaultValue = "allot-operators")
    String operatorGroup;

    private volatile ServiceSecret secret;

    void onStart(@Observes StartupEvent event) {
        secret = ServiceSecret.loadOrCreate(Path.of(config.apiSecretFile()));
    }

    @ServerRequestFilter
    public Uni<Response> authenticate(ContainerRequestContext request, ResourceInfo resource) {
        if (resource.getResourceClass() == CheckpointResource.class) {
            return Uni.createFrom().nullItem();
        }
        String bearer = bearer(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (bearer == null) {
            return Uni.createFrom().item(unauthorized("authentication required: 'Authorization: Bearer <token>' (an"
                    + " operator's token, or the agent API secret)"));
        }
        ServiceSecret known = secret;
        if (known != null && known.matches(bearer)) {
            caller.set(AgentCaller.Kind.SERVICE, null);
            return Uni.createFrom().nullItem();
        }
        if (bearer.chars().filter(c -> c == '.').count() != 2) {
            return Uni.createFrom().item(unauthorized("the bearer credential is neither the agent API secret nor a token"));
        }
        return identities.getDeferredIdentity().onItemOrFailure().transform((identity, failure) -> {
            if (failure != null || identity == null || identity.isAnonymous()) {
                LOG.debugf("bearer token refused: %s", failure);
                return unauthorized("the bearer token is not valid here (wrong signature or algorithm, expired, or"
                        + " for another issuer or audience)");
            }
            if (!operator(identity)) {
                return error(Response.Status.FORBIDDEN, identity.getPrincipal().getName()
                        + ": only operators and admins use a node agent's API");
            }
            caller.set(AgentCaller.Kind.OPERATOR, identity.getPrincipal().getName());
            return null;
        });
    }

    private boolean operator(SecurityIdentity identity) {
        return identity.hasRole(adminGroup) || identity.hasRole(operatorGroup);
    }

    /** The credential of an {@code Authorization: Bearer <credential>} header, or null. */
    public static String bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String value = header.substring(7).strip();
        return value.isEmpty() ? null : value;
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(error(Response.Status.UNAUTHORIZED, message))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build();
    }

    public static Response error(Response.Status status, String message) {
        return Response.status(status).type("application/json").entity(Map.of("status", status.getStatusCode(),
                "field", "Authorization", "message", message)).build();
    }
}
