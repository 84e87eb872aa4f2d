package dev.allot.nodeagent.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Who a job runs as and what it sees, so that a job never gets the agent's privileges or credentials.
 *
 * <ul>
 *   <li><b>User.</b> An agent running as root runs every job as an unprivileged user ({@code allot.agent.run-as},
 *       default {@code nobody}), through {@code setpriv --reuid --regid --init-groups}; the supervisor that records
 *       the exit status stays the agent's (its exit file is in the agent's own ledger dir). An agent that is not
 *       root runs jobs as itself.</li>
 *   <li><b>Environment.</b> Nothing of the agent's own environment reaches a job. Every process of the chain that
 *       runs as root gets a fixed environment ({@code PATH=/usr/bin:/bin}); the job's environment (Allot's
 *       variables, the job's env and its secrets) is handed over on the supervisor's stdin, read by a small
 *       loader that runs as the job's user and then {@code exec}s the command with stdin {@code /dev/null}. So no
 *       job-supplied variable (say {@code LD_PRELOAD}) ever reaches a root process, and no value is on a command
 *       line ({@code /proc/<pid>/cmdline} is world-readable) or on disk.</li>
 * </ul>
 */
public final class JobSandbox {

    /** The fixed environment of the processes that run before the job's user takes over. */
    public static final Map<String, String> LAUNCH_ENV = Map.of("PATH", "/usr/bin:/bin");
    public static final String DEFAULT_JOB_PATH = "/usr/local/bin:/usr/bin:/bin";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    /**
     * Runs as the job's user: reads the environment (export lines) from stdin, then becomes the command.
     * {@code cat} reads fd 0 as it is (a root-owned pipe cannot be reopened through /dev/stdin by another user).
     */
    static final String LOADER = """
            eval "$(cat)" || exit 126
            exec "$@" </dev/null
            """;

    /** A user jobs run as. */
    public record User(String name, int uid, int gid) {
    }

    private final Optional<User> user;
    private final String setpriv;
    private final String jobPath;

    private JobSandbox(Optional<User> user, String setpriv, String jobPath) {
        this.user = user;
        this.setpriv = setpriv;
        this.jobPath = jobPath;
    }

    /** Jobs run as the agent's own user (an agent that is not root; tests that build the agent by hand). */
    public static JobSandbox asAgentUser() {
        return new JobSandbox(Optional.empty(), null, DEFAULT_JOB_PATH);
    }

    /**
     * From the configuration: {@code runAs} unset means {@code nobody} when the agent is root and the agent's own
     * user otherwise; {@code root} runs jobs as root (documented as a bad idea).
     */
    public static JobSandbox configured(Optional<String> runAs, String jobPath) {
        boolean root = agentUid() == 0;
        String name = runAs.map(String::strip).filter(s -> !s.isEmpty()).orElse(root ? "nobody" : null);
        if (name == null) {
            return new JobSandbox(Optional.empty(), null, jobPath);
        }
        if (!USER.matcher(name).matches()) {
            throw new IllegalArgumentException("allot.agent.run-as '" + name + "' is not a user name");
        }
        if (!root) {
            if (name.equals(System.getProperty("user.name"))) {
                return new JobSandbox(Optional.empty(), null, jobPath);
            }
            throw new IllegalArgumentException("allot.agent.run-as=" + name + " needs the agent to run as root (it"
                    + " runs as " + System.getProperty("user.name") + "); unset it to run jobs as the agent's user");
        }
        if (name.equals("root")) {
            return new JobSandbox(Optional.empty(), null, jobPath);
        }
        User resolved = new User(name, id("-u", name), id("-g", name));
        if (resolved.uid() == 0) {
            throw new IllegalArgumentException("allot.agent.run-as=" + name + " has uid 0");
        }
        String setpriv = List.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv").stream()
                .filter(p -> Files.isExecutable(Path.of(p))).findFirst()
                .orElseThrow(() -> new IllegalStateException("setpriv (util-linux) is needed to run jobs as " + name));
        return new JobSandbox(Optional.of(resolved), setpriv, jobPath);
    }

    /** The user jobs run as; empty when they run as the agent's own user. */
    public Optional<User> user() {
        return user;
    }

    /** Who jobs run as, for logs. */
    public String describe() {
        return user.map(u -> u.name() + " (uid " + u.uid() + ")").orElse("the agent's own user");
    }

    /** The argv that runs {@code command} as the job's user, its environment read from stdin. */
    public List<String> wrap(List<String> command) {
        List<String> argv = new ArrayList<>();
        user.ifPresent(u -> argv.addAll(List.of(setpriv, "--reuid=" + u.uid(), "--regid=" + u.gid(), "--init-groups",
                "--")));
        argv.addAll(List.of("/bin/sh", "-c", LOADER, "allot-job"));
        argv.addAll(command);
        return argv;
    }

    /**
     * The job's environment: a minimal {@code PATH} and {@code HOME} (its working directory), then the job's
     * own env, then its secrets, then Allot's variables, which win. Names that a shell cannot export are
     * dropped (returned in {@code dropped}).
     */
    public Map<String, String> environment(Path home, Map<String, String> declared, Map<String, String> secrets,
                                           Map<String, String> allot, List<String> dropped) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("PATH", jobPath);
        env.put("HOME", home.toString());
        user.ifPresent(u -> {
            env.put("USER", u.name());
            env.put("LOGNAME", u.name());
        });
        for (Map<String, String> layer : List.of(declared, secrets, allot)) {
            layer.forEach((name, value) -> {
                if (NAME.matcher(name).matches() && value.indexOf('\0') < 0) {
                    env.put(name, value);
                } else {
                    dropped.add(name);
                }
            });
        }
        return env;
    }

    /** {@code export NAME='value'} lines; a value's single quotes closed, escaped and reopened. */
    public static byte[] script(Map<String, String> env) {
        StringBuilder out = new StringBuilder();
        env.forEach((name, value) -> out.append("export ").append(name).append("='")
                .append(value.replace("'", "'\\''")).append("'\n"));
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Makes {@code dir} the job user's own (mode 0700), its contents too (never following a link: the job may
     * have planted some). Without a separate user, only the mode is set.
     */
    public void own(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (user.isEmpty()) {
                return;
            }
            var lookup = dir.getFileSystem().getUserPrincipalLookupService();
            var owner = lookup.lookupPrincipalByName(Integer.toString(user.get().uid()));
            var group = lookup.lookupPrincipalByGroupName(Integer.toString(user.get().gid()));
            try (var walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS);
                    view.setOwner(owner);
                    view.setGroup(group);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " to the job's user", e);
        }
    }

    /** Whether the job's user can reach (traverse) {@code dir}: a real look, as that user. */
    public boolean reachable(Path dir) {
        if (user.isEmpty()) {
            return true;
        }
        try {
            Process look = new ProcessBuilder(setpriv, "--reuid=" + user.get().uid(), "--regid=" + user.get().gid(),
                    "--clear-groups", "--", "/bin/sh", "-c", "cd \"$1\"", "look", dir.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            look.getOutputStream().close();
            return look.waitFor(10, TimeUnit.SECONDS) && look.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static int agentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name")) ? 0 : -1;
        }
    }

    private static int id(String flag, String name) {
        try {
            Process id = new ProcessBuilder("id", flag, name).redirectErrorStream(true).start();
            id.getOutputStream().close();
            String out = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!id.waitFor(10, TimeUnit.SECONDS) || id.exitValue() != 0) {
                throw new IllegalArgumentException("allot.agent.run-as: no user '" + name + "' on this machine (" + out + ")");
            }
            return Integer.parseInt(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look up user " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
