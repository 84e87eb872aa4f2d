package dev.allot.budget.nodes;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What this service shows a node agent's API ({@code Authorization: Bearer <secret>}) to read job output: the agent
 * API secret, one line in {@code allot.agent-api.secret-file} (the same file, or Kubernetes Secret, the agents
 * read; mode 0600). Read when it changes, so a rotated secret needs no restart; a missing file sends nothing and
 * the agent's 401 says so.
 */
@ApplicationScoped
public class AgentApiCredential {

    @ConfigProperty(name = "allot.agent-api.secret-file")
    String secretFile;

    private FileTime readAt;
    private String secret;

    /** The {@code Authorization} header value, if the secret file is there. */
    public synchronized Optional<String> authorization() {
        Path file = Path.of(secretFile);
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            if (!modified.equals(readAt)) {
                secret = Files.readString(file, StandardCharsets.UTF_8).strip();
                readAt = modified;
            }
            return secret.isEmpty() ? Optional.empty() : Optional.of("Bearer " + secret);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    public String file() {
        return secretFile;
    }
}
