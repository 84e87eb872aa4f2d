package dev.allot.budget.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.testsupport.TestTokens;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.jwt.util.KeyUtils;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VerifiedTokensTest {

    private CountingParser checks;
    private MovableClock clock;
    private VerifiedTokens tokens;

    @BeforeEach
    void givenTheServicesKeyIssuerAndAudience() throws Exception {
        JWTAuthContextInfo context = new JWTAuthContextInfo(
                KeyUtils.decodePublicKey(Files.readString(TestTokens.publicKeyPem())), TestTokens.ISSUER);
        context.setExpectedAudience(Set.of(TestTokens.AUDIENCE));
        checks = new CountingParser(context);
        clock = new MovableClock(Instant.now());
        tokens = new VerifiedTokens(checks, Duration.ofSeconds(60), clock);
    }

    @Test
    void whenTheSameTokenComesAgain_thenItsSignatureIsNotCheckedAgain() throws Exception {
        String token = TestTokens.user("mia");

        JsonWebToken first = tokens.parse(token);
        JsonWebToken second = tokens.parse(token);

        assertThat(first.getName()).isEqualTo("mia");
        assertThat(second.getName()).isEqualTo("mia");
        assertThat(checks.count.get()).isEqualTo(1);
        // another caller's token is its own entry
        assertThat(tokens.parse(TestTokens.user("noah")).getName()).isEqualTo("noah");
        assertThat(checks.count.get()).isEqualTo(2);
    }

    @Test
    void whenTheTimeToLiveHasPassed_thenTheTokenIsCheckedAgain() throws Exception {
        String token = TestTokens.user("mia");
        tokens.parse(token);

        clock.advance(Duration.ofSeconds(61));
        tokens.parse(token);

        assertThat(checks.count.get()).isEqualTo(2);
    }

    @Test
    void whenATokenExpiresBeforeTheTimeToLive_thenItIsRememberedOnlyUntilItsExpiry() throws Exception {
        String token = TestTokens.token().subject("mia").expiresIn(Duration.ofSeconds(10)).sign();
        tokens.parse(token);

        clock.advance(Duration.ofSeconds(5));
        tokens.parse(token);
        assertThat(checks.count.get()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(6));
        tokens.parse(token);
        assertThat(checks.count.get()).isEqualTo(2);
    }

    @Test
    void whenATokenIsRefused_thenItIsRefusedAgainEveryTime() {
        String forged = TestTokens.token().subject("mia").signWithOtherKey();
        String expired = TestTokens.token().subject("mia").expiresIn(Duration.ofMinutes(-5)).sign();

        for (String token : new String[] {forged, forged, expired, expired}) {
            assertThatThrownBy(() -> tokens.parse(token)).isInstanceOf(ParseException.class);
        }
        assertThat(checks.count.get()).isEqualTo(4);
    }

    /** The real parser (signature, issuer, audience, expiry), counting how often it is asked. */
    private static final class CountingParser extends DefaultJWTParser {
        final AtomicInteger count = new AtomicInteger();

        CountingParser(JWTAuthContextInfo context) {
            super(context);
        }

        @Override
        public JsonWebToken parse(String token) throws ParseException {
            count.incrementAndGet();
            return super.parse(token);
        }
    }

    private static final class MovableClock extends Clock {
        private Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public long millis() {
            return now.toEpochMilli();
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
