package dev.allot.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the bearer token comes from, first found wins: {@code --token}, then {@code ALLOT_TOKEN},
 * then the file {@code bin/allot login} writes: {@code $ALLOT_HOME/token}, {@code ./.allot/token},
 * {@code ~/.allot/token}. No token: requests go without an Authorization header (an open API).
 */
public final class TokenSource {

    private TokenSource() {
    }

    public static Optional<String> resolve(String flag, Map<String, String> env, Path workingDir) {
        if (flag != null && !flag.isBlank()) {
            return Optional.of(flag.strip());
        }
        String fromEnv = env.get("ALLOT_TOKEN");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Optional.of(fromEnv.strip());
        }
        for (Path file : files(env, workingDir)) {
            if (Files.isRegularFile(file)) {
                try {
                    String token = Files.readString(file, StandardCharsets.UTF_8).strip();
                    if (!token.isEmpty()) {
                        return Optional.of(token);
                    }
                } catch (IOException unreadable) {
                    throw CliFailure.usage("cannot read the token file " + file + ": " + unreadable.getMessage()
                            + "; fix its permissions, run 'bin/allot login' again, or pass --token");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The name a JWT carries, as the API takes it (MicroProfile JWT: {@code upn}, else
     * {@code preferred_username}, else {@code sub}); empty when the token is not a readable JWT. Read, not
     * verified: the API verifies; the CLI only needs to know whose jobs are "mine".
     */
    public static Optional<String> name(String token) {
        String[] parts = token.split("\\.");
        if (parts.length < 2) {
            return Optional.empty();
        }
        try {
            com.fasterxml.jackson.databind.JsonNode claims = ApiClient.JSON.readTree(
                    java.util.Base64.getUrlDecoder().decode(parts[1]));
            for (String claim : List.of("upn", "preferred_username", "sub")) {
                String value = claims.path(claim).asText("");
                if (!value.isBlank()) {
                    return Optional.of(value);
                }
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException notAJwt) {
            return Optional.empty();
        }
    }

    static List<Path> files(Map<String, String> env, Path workingDir) {
        List<Path> files = new ArrayList<>();
        String home = env.get("ALLOT_HOME");
        if (home != null && !home.isBlank()) {
            files.add(Path.of(home, "token"));
        }
        files.add(workingDir.resolve(".allot/token"));
        String user = env.get("HOME");
        if (user != null && !user.isBlank()) {
            files.add(Path.of(user, ".allot", "token"));
        }
        return files;
    }
}
