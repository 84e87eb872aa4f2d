package dev.allot.nodeagent.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The secret the budget-service (the public API) shows this agent to read job output and node state
 * ({@code Authorization: Bearer <secret>}): one line in a file only its owner reads ({@code allot.agent.api-secret-file},
 * mode 0600 or 0400, or root-owned 0440 as a Kubernetes Secret volume with the pod's fsGroup: {@link PrivateFile};
 * a Kubernetes Secret mounted into the agents and the budget-service). A missing file is made
 * (32 random bytes, hex, mode 0600), so the local stack, where both read the same {@code .allot/auth/}, needs no
 * setup; a file others may read is refused at start.
 */
public final class ServiceSecret {

    private static final Logger LOG = Logger.getLogger(ServiceSecret.class);
    private final byte[] secret;

    private ServiceSecret(byte[] secret) {
        this.secret = secret;
    }

    /**
     * Reads the file, or makes it when there is none; null (with a warning) when it can be neither read nor made:
     * the API then takes operators' tokens only, and the budget-service's reads are refused (it says why).
     */
    public static ServiceSecret loadOrCreate(Path file) {
        Path path = file.toAbsolutePath().normalize();
        try {
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    create(path);
                } catch (IOException e) {
                    LOG.warnf("no agent API secret: %s does not exist and cannot be made (%s); only operators' tokens"
                            + " are taken, the budget-service cannot read job output here", path, e.toString());
                    return null;
                }
            }
            Optional<String> loose = PrivateFile.whyNot(path);
            if (loose.isPresent()) {
                throw new IllegalStateException("the agent API secret " + path + " is readable by others than its owner"
                        + " (" + loose.get() + ")");
            }
            String value = Files.readString(path, StandardCharsets.UTF_8).strip();
            if (value.length() < 32) {
                throw new IllegalStateException("the agent API secret " + path + " is shorter than 32 characters");
            }
            return new ServiceSecret(value.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the agent API secret " + path, e);
        }
    }

    private static void create(Path path) throws IOException {
        Files.createDirectories(path.getParent());
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(path, HexFormat.of().formatHex(random) + "\n", StandardCharsets.UTF_8);
            LOG.infof("made the agent API secret %s (mode 0600): the budget-service reads the same file"
                    + " (allot.agent-api.secret-file) to read job output from this agent", path);
        } catch (FileAlreadyExistsException raced) {
            // another agent on this machine made it first: use that one
        }
    }

    /** Whether {@code presented} is the secret; in constant time. */
    public boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.UTF_8));
    }
}
