package dev.allot.budget.auth;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKey;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The bearer-token parser Quarkus' JWT validator uses: the default one (signature, issuer, audience, expiry), with
 * the tokens it accepted remembered for a short while. A client sends the same token on every request; checking its
 * RS256 signature again each time cost about 0.6 ms of CPU per {@code POST /jobs}, a quarter of the request. A
 * remembered token is reused only while it is unexpired and at most {@code allot.auth.verified-token-ttl} after it
 * was checked; a token that failed is never remembered, so a forged one is checked (and refused) every time.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class VerifiedTokens implements JWTParser {

    /** Beyond this many remembered tokens, new ones are checked every time rather than remembered. */
    static final int MAX_REMEMBERED = 10_000;

    private final DefaultJWTParser parser;
    private final Duration ttl;
    private final Clock clock;
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

    @Inject
    public VerifiedTokens(DefaultJWTParser parser,
            @ConfigProperty(name = "allot.auth.verified-token-ttl", defaultValue = "60s") Duration ttl) {
        this(parser, ttl, Clock.systemUTC());
    }

    VerifiedTokens(DefaultJWTParser parser, Duration ttl, Clock clock) {
        this.parser = parser;
        this.ttl = ttl;
        this.clock = clock;
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        long now = clock.millis();
        Remembered known = remembered.get(token);
        if (known != null && now < known.reuseUntilMillis()) {
            return known.token();
        }
        JsonWebToken verified = parser.parse(token);
        remember(token, verified, now);
        return verified;
    }

    private void remember(String token, JsonWebToken verified, long now) {
        long until = now + ttl.toMillis();
        // the expiry claim is in seconds; a token without one is remembered for the ttl only
        if (verified.getExpirationTime() > 0) {
            until = Math.min(until, verified.getExpirationTime() * 1000);
        }
        if (until <= now) {
            return;
        }
        if (remembered.size() >= MAX_REMEMBERED) {
            remembered.values().removeIf(r -> r.reuseUntilMillis() <= now);
            if (remembered.size() >= MAX_REMEMBERED) {
                return;
            }
        }
        remembered.put(token, new Remembered(verified, until));
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return parser.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return parser.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, java.security.PrivateKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return parser.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return parser.parseOnly(token);
    }

    private record Remembered(JsonWebToken token, long reuseUntilMillis) {
    }
}
