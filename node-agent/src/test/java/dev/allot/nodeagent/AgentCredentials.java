package dev.allot.nodeagent;

import dev.allot.testsupport.TestTokens;
import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Credentials for the agent's API in tests, and dirs a job's unprivileged user can write. */
final class AgentCredentials {

    /** The test profile's allot.agent.api-secret-file (the agent made it at start). */
    static final Path SECRET_FILE = Path.of("target/agent-auth/agent-api-secret");

    private AgentCredentials() {
    }

    static String serviceSecret() {
        try {
            return Files.readString(SECRET_FILE, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** As the budget-service calls the agent. */
    static RequestSpecification asService() {
        return RestAssured.given().header("Authorization", "Bearer " + serviceSecret());
    }

    /** As a person of the operator group. */
    static RequestSpecification asOperator(String name) {
        return RestAssured.given().auth().oauth2(TestTokens.user(name, TestTokens.OPERATOR_GROUP));
    }

    /** A test's temp dir, made writable by the user jobs run as (nobody, when the tests run as root). */
    static Path writableByJobs(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
