package dev.allot.nodeagent.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a file that holds a secret (the agent API secret, a job's secret) is private enough to trust, by the rule
 * PostgreSQL applies to its key files: readable by its owner only (0600 or 0400), or owned by root and readable by
 * its group only (0640 or 0440), which is what a Kubernetes Secret volume gives a non-root pod
 * ({@code defaultMode: 0440} with the pod's {@code fsGroup}): root owns those files and the pod's group reads them.
 * Never readable or writable by others, never writable by the group.
 */
public final class PrivateFile {

    private static final Set<PosixFilePermission> NEVER = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PrivateFile() {
    }

    /** Why {@code file} is not private (to end "... is readable by others than its owner"), or empty if it is. */
    public static Optional<String> whyNot(Path file) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class);
        Set<PosixFilePermission> mode = attributes.permissions();
        String shown = PosixFilePermissions.toString(mode);
        if (mode.stream().anyMatch(NEVER::contains)) {
            return Optional.of(shown + ": chmod 600 it");
        }
        if (mode.contains(PosixFilePermission.GROUP_READ) && !"root".equals(attributes.owner().getName())) {
            return Optional.of(shown + ", owned by " + attributes.owner().getName()
                    + ": chmod 600 it (the group may read it only when root owns it, as in a Kubernetes Secret volume)");
        }
        return Optional.empty();
    }
}
