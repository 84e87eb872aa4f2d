package dev.allot.nodeagent.process;

import dev.allot.nodeagent.auth.PrivateFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The node's secret store ({@code allot.agent.secrets-dir}): one file per secret, its content the value, kept
 * beneath the budget path it is for. A job charged to {@code inst/ml/team-a} that asks for secret {@code wandb}
 * gets the first of {@code <dir>/inst/ml/team-a/wandb}, {@code <dir>/inst/ml/wandb}, {@code <dir>/inst/wandb}:
 * only jobs charged beneath an account (so submitted by its members) can read its secrets. A file must be
 * private by {@link PrivateFile}'s rule (0600 or 0400; root-owned 0440, a Kubernetes Secret volume with
 * {@code defaultMode: 0440} and the pod's {@code fsGroup}); links are
 * followed only to files inside the store (as a Secret volume's {@code ..data} links are).
 *
 * <p>Values are read when a replica starts and go to its environment only: they are never logged, reported or
 * sent anywhere (what goes over Kafka is the secret's name).
 */
public final class SecretStore {

    static final int MAX_VALUE_BYTES = 64 * 1024;
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    /** Why a job's secrets could not be read: the message names the secret, never a value. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message);
        }
    }

    private final Optional<Path> dir;

    public SecretStore(Optional<Path> dir) {
        this.dir = dir.map(d -> d.toAbsolutePath().normalize());
    }

    /** The values of a job's references (variable -> secret name), or why not. */
    public Map<String, String> resolve(String budget, Map<String, String> references) throws Refused {
        Map<String, String> values = new LinkedHashMap<>();
        if (references.isEmpty()) {
            return values;
        }
        if (dir.isEmpty()) {
            throw new Refused("the job asks for secrets " + references.values() + " but this agent has no secret"
                    + " store (allot.agent.secrets-dir)");
        }
        for (Map.Entry<String, String> ref : references.entrySet()) {
            values.put(ref.getKey(), read(budget, ref.getValue()));
        }
        return values;
    }

    private String read(String budget, String name) throws Refused {
        if (!SEGMENT.matcher(name).matches()) {
            throw new Refused("secret name '" + name + "' is not a name (1-128 of [A-Za-z0-9_.-])");
        }
        String[] segments = budget == null ? new String[0] : budget.split("/");
        for (String segment : segments) {
            if (!SEGMENT.matcher(segment).matches()) {
                throw new Refused("budget '" + budget + "' cannot be a path in the secret store");
            }
        }
        Path root = dir.get();
        for (int depth = segments.length; depth >= 1; depth--) {
            Path candidate = root;
            for (int i = 0; i < depth; i++) {
                candidate = candidate.resolve(segments[i]);
            }
            candidate = candidate.resolve(name);
            if (Files.exists(candidate)) {
                return value(root, candidate, name);
            }
        }
        throw new Refused("no secret '" + name + "' for budget '" + budget + "' in the secret store (looked for "
                + "<secrets-dir>/<account>/" + name + " from the budget up to its root)");
    }

    private static String value(Path root, Path file, String name) throws Refused {
        try {
            Path real = file.toRealPath();
            if (!real.startsWith(root.toRealPath()) || !Files.isRegularFile(real)) {
                throw new Refused("secret '" + name + "' is not a file inside the secret store");
            }
            Optional<String> loose = PrivateFile.whyNot(real);
            if (loose.isPresent()) {
                throw new Refused("secret '" + name + "' is readable by others than its owner (" + loose.get() + ")");
            }
            if (Files.size(real) > MAX_VALUE_BYTES) {
                throw new Refused("secret '" + name + "' is over " + MAX_VALUE_BYTES + " bytes");
            }
            String value = Files.readString(real, StandardCharsets.UTF_8);
            if (value.endsWith("\n")) {
                value = value.substring(0, value.length() - 1); // as `echo value > file` writes it
            }
            if (value.indexOf('\0') >= 0) {
                throw new Refused("secret '" + name + "' contains a NUL byte: an environment value cannot");
            }
            return value;
        } catch (IOException e) {
            throw new Refused("cannot read secret '" + name + "': " + e.getClass().getSimpleName());
        }
    }
}
