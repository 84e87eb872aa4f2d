package dev.allot.budget.auth;

import dev.allot.budget.api.ApiExceptionMapper;
import dev.allot.budget.tree.Violation;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every API request (every JAX-RS resource) needs a valid bearer token: no token or an anonymous caller is 401,
 * a token smallrye-jwt refuses (signature, alg, expiry, issuer, audience) is 401, both in the API's JSON error
 * shape. Health, metrics, the OpenAPI document and static files are not JAX-RS resources and stay open.
 * Authentication is lazy (quarkus.http.auth.proactive=false) so that this filter, not the HTTP layer, answers.
 */
@ApplicationScoped
public class Authentication {

    private static final Logger LOG = Logger.getLogger(Authentication.class);

    @Inject
    CurrentIdentityAssociation identities;

    @Inject
    SecurityIdentity identity;

    @ConfigProperty(name = "allot.auth.admin-group", defaultValue = "allot-admins")
    String adminGroup;

    @ConfigProperty(name = "allot.auth.operator-group", defaultValue = "allot-operators")
    String operatorGroup;

    @ServerRequestFilter
    public Uni<Response> authenticate() {
        return identities.getDeferredIdentity().onItemOrFailure().transform((resolved, failure) -> {
            if (failure != null) {
                LOG.debugf("bearer token refused: %s", failure.toString());
                return unauthorized("the bearer token is not valid here (wrong signature or algorithm, expired,"
                        + " or for another issuer or audience)");
            }
            if (resolved == null || resolved.isAnonymous()) {
                return unauthorized("authentication required: send 'Authorization: Bearer <token>' (bin/allot login)");
            }
            return null;
        });
    }

    /** The caller of the current request (authenticated by the filter above). */
    public Caller caller() {
        return new Caller(identity.getPrincipal().getName(), identity.getRoles(),
                identity.hasRole(adminGroup), identity.hasRole(operatorGroup));
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(ApiExceptionMapper.error(new Violation(401, "Authorization", message)))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build();
    }
}
