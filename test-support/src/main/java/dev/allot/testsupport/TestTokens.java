package dev.allot.testsupport;

import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Bearer tokens for tests: RS256 JWTs signed with a key pair made once per JVM, as {@code bin/allot login}
 * mints them for the local stack. A service under test trusts the public key through {@link #serviceConfig()}
 * ({@link AllotInfraTestResource} adds it, so every {@code @QuarkusTest} on the shared infrastructure does).
 *
 * <pre>
 * given().auth().oauth2(TestTokens.admin())...                // RestAssured
 * request.header("Authorization", TestTokens.bearer("alice"))  // any HTTP client
 * TestTokens.user("alice", "team-a")                           // a user in group team-a
 * TestTokens.token().subject("x").expiresIn(Duration.ofSeconds(-60)).sign()   // an expired one
 * </pre>
 *
 * <p>The key pair lives in files named by the process id, so Quarkus's test class loader and the application
 * class loader (each loading this class once) sign and verify with the same key.
 */
public final class TestTokens {

    public static final String ISSUER = "allot-test";
    public static final String AUDIENCE = "allot";
    /** The groups the budget-service reads as admin and operator (its defaults). */
    public static final String ADMIN_GROUP = "allot-admins";
    public static final String OPERATOR_GROUP = "allot-operators";

    private TestTokens() {
    }

    /** A valid token of a user with the given groups. */
    public static String user(String name, String... groups) {
        return token().subject(name).groups(groups).sign();
    }

    public static String admin() {
        return user("admin", ADMIN_GROUP);
    }

    public static String operator() {
        return user("operator", OPERATOR_GROUP);
    }

    /** {@code "Bearer <token>"} for an {@code Authorization} header. */
    public static String bearer(String name, String... groups) {
        return "Bearer " + user(name, groups);
    }

    public static Builder token() {
        return new Builder();
    }

    /** The public key the tokens are signed for, as a PEM file. */
    public static Path publicKeyPem() {
        return keyDir().resolve("public-key.pem");
    }

    /** The smallrye-jwt settings that make a service trust these tokens. */
    public static Map<String, String> serviceConfig() {
        return Map.of(
                "mp.jwt.verify.publickey.location", publicKeyPem().toUri().toString(),
                "mp.jwt.verify.issuer", ISSUER,
                "mp.jwt.verify.audiences", AUDIENCE);
    }

    /** What to put in a token; {@link #sign()} signs it with this JVM's key (or another key, to test refusal). */
    public static final class Builder {
        private String subject = "user";
        private List<String> groups = List.of();
        private String issuer = ISSUER;
        private String audience = AUDIENCE;
        private Duration expiresIn = Duration.ofHours(1);
        private String algorithm = "RS256";

        public Builder subject(String subject) {
            this.subject = subject;
            return this;
        }

        public Builder groups(String... groups) {
            this.groups = List.of(groups);
            return this;
        }

        public Builder issuer(String issuer) {
            this.issuer = issuer;
            return this;
        }

        public Builder audience(String audience) {
            this.audience = audience;
            return this;
        }

        /** Negative for a token that has already expired. */
        public Builder expiresIn(Duration expiresIn) {
            this.expiresIn = expiresIn;
            return this;
        }

        /** Signed with this JVM's key. */
        public String sign() {
            return sign(privateKey());
        }

        /** Signed with a key the service does not know. */
        public String signWithOtherKey() {
            return sign(generate().getPrivate());
        }

        /** {@code alg: none}, no signature. */
        public String unsigned() {
            algorithm = "none";
            return signingInput() + ".";
        }

        private String sign(PrivateKey key) {
            String input = signingInput();
            try {
                Signature rsa = Signature.getInstance("SHA256withRSA");
                rsa.initSign(key);
                rsa.update(input.getBytes(StandardCharsets.US_ASCII));
                return input + "." + base64(rsa.sign());
            } catch (Exception e) {
                throw new IllegalStateException("could not sign a test token", e);
            }
        }

        private String signingInput() {
            Instant now = Instant.now();
            List<String> quoted = new ArrayList<>();
            groups.forEach(g -> quoted.add(json(g)));
            String header = "{\"alg\":" + json(algorithm) + ",\"typ\":\"JWT\"}";
            String claims = "{\"iss\":" + json(issuer) + ",\"aud\":" + json(audience) + ",\"sub\":" + json(subject)
                    + ",\"upn\":" + json(subject) + ",\"groups\":[" + String.join(",", quoted) + "]"
                    + ",\"iat\":" + now.getEpochSecond() + ",\"exp\":" + now.plus(expiresIn).getEpochSecond()
                    + ",\"jti\":" + json(UUID.randomUUID().toString()) + "}";
            return base64(header.getBytes(StandardCharsets.UTF_8)) + "." + base64(claims.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String json(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String base64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static PrivateKey privateKey() {
        try {
            byte[] der = Files.readAllBytes(keyDir().resolve("private-key.der"));
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (Exception e) {
            throw new IllegalStateException("could not read the test signing key", e);
        }
    }

    private static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The JVM's key directory, made on first use and named by the process id, so every class loader finds the
     * same one. No lock is shared between loaders: a loader that loses the race to create it uses the winner's.
     */
    private static Path keyDir() {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "allot-test-jwt-" + ProcessHandle.current().pid());
        if (Files.isRegularFile(dir.resolve("public-key.pem"))) {
            return dir;
        }
        try {
            Path staging = Files.createTempDirectory(dir.getParent(), "allot-test-jwt-staging");
            KeyPair pair = generate();
            Files.write(staging.resolve("private-key.der"), pair.getPrivate().getEncoded());
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(pair.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            Files.writeString(staging.resolve("public-key.pem"), pem);
            try {
                Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
                dir.toFile().deleteOnExit();
                dir.resolve("private-key.der").toFile().deleteOnExit();
                dir.resolve("public-key.pem").toFile().deleteOnExit();
            } catch (IOException lostTheRace) {
                // another class loader (or a stale run of a reused pid) made it first: use that one
                Files.deleteIfExists(staging.resolve("private-key.der"));
                Files.deleteIfExists(staging.resolve("public-key.pem"));
                Files.deleteIfExists(staging);
            }
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException("could not make the test signing key", e);
        }
    }
}
