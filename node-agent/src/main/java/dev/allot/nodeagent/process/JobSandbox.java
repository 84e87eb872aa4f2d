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
    /** coreutils' nice, run (as root, with {@link #LAUNCH_ENV}) in front of a replica's chain. */
    static final String NICE = "/usr/bin/nice";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    /**
     * Runs as the job's user: reads the environment (export lines) from stdin, then becomes the command. Fd 0 is
     * read as it is (a root-owned pipe cannot be reopened through /dev/stdin by another user), with the shell's
     * own {@code read}: {@code $(cat)} cost a subshell and an exec per job, about 5 ms of CPU each on a machine
     * where a process start costs that much (a third of the loader's cost). The loop's variables are not
     * exported, so the job does not see them; an export line for the same name, run by the eval, wins.
     */
    static final String LOADER = """
            allot_env=
            while IFS= read -r allot_line || [ -n "$allot_line" ]; do allot_env="$allot_env$allot_line
            "; done
            eval "$allot_env" || exit 126
            exec "$@" </dev/null
            """;

    /** A user jobs run as; {@code named}: in the machine's user database (its groups are initialised). */
    public record User(String name, int uid, int gid, boolean named) {
    }

    private final Optional<User> user;
    private final String setpriv;
    private final String jobPath;
    /** {@code allot.agent.job-uids}: a uid of its own per running replica, from this range (inclusive). */
    private final int firstUid;
    private final int lastUid;
    private final Map<ReplicaKey, User> leased = new java.util.concurrent.ConcurrentHashMap<>();
    /** {@code allot.agent.job-nice}: the niceness of every process of a job's chain (0: the agent's own). */
    private final int nice;

    private JobSandbox(Optional<User> user, String setpriv, String jobPath) {
        this(user, setpriv, jobPath, 0, -1, 0);
    }

    private JobSandbox(Optional<User> user, String setpriv, String jobPath, int firstUid, int lastUid, int nice) {
        this.user = user;
        this.setpriv = setpriv;
        this.jobPath = jobPath;
        this.firstUid = firstUid;
        this.lastUid = lastUid;
        this.nice = nice;
    }

    /**
     * The same sandbox, its jobs started at niceness {@code nice} (0-19; 0: the agent's own): below whatever else
     * runs on the node. A job cannot lower it again: it runs unprivileged.
     */
    public JobSandbox niced(int nice) {
        if (nice < 0 || nice > 19) {
            throw new IllegalArgumentException("allot.agent.job-nice must be 0-19 (0: as the agent), not " + nice);
        }
        return new JobSandbox(user, setpriv, jobPath, firstUid, lastUid, nice);
    }

    /** {@code argv} (a replica's whole chain, its supervisor first) started at the jobs' niceness. */
    public List<String> prioritised(List<String> argv) {
        if (nice == 0) {
            return argv;
        }
        List<String> niced = new ArrayList<>(List.of(NICE, "-n", Integer.toString(nice)));
        niced.addAll(argv);
        return niced;
    }

    /** The jobs' niceness (0: the agent's own). */
    public int nice() {
        return nice;
    }

    /** Jobs run as the agent's own user (an agent that is not root; tests that build the agent by hand). */
    public static JobSandbox asAgentUser() {
        return new JobSandbox(Optional.empty(), null, DEFAULT_JOB_PATH);
    }

    /**
     * From the configuration: {@code runAs} unset means {@code nobody} when the agent is root and the agent's own
     * user otherwise; {@code root} runs jobs as root (documented as a bad idea).
     */
    public static JobSandbox configured(Optional<String> runAs, Optional<String> jobUids, String jobPath) {
        boolean root = agentUid() == 0;
        if (jobUids.isPresent() && !jobUids.get().isBlank()) {
            return perReplicaUids(jobUids.get().strip(), root, jobPath);
        }
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
        User resolved = new User(name, id("-u", name), id("-g", name), true);
        if (resolved.uid() == 0) {
            throw new IllegalArgumentException("allot.agent.run-as=" + name + " has uid 0");
        }
        return new JobSandbox(Optional.of(resolved), setpriv(name), jobPath);
    }

    /** {@code FIRST-LAST}: every running replica gets a uid (and gid) of its own, with no user database entry. */
    private static JobSandbox perReplicaUids(String range, boolean root, String jobPath) {
        java.util.regex.Matcher m = Pattern.compile("(\\d+)-(\\d+)").matcher(range);
        if (!m.matches() || Long.parseLong(m.group(1)) < 1000 || Long.parseLong(m.group(2)) > Integer.MAX_VALUE - 1
                || Long.parseLong(m.group(1)) > Long.parseLong(m.group(2))) {
            throw new IllegalArgumentException("allot.agent.job-uids must be FIRST-LAST with 1000 <= FIRST <= LAST,"
                    + " e.g. 200000-265535, not '" + range + "'");
        }
        if (!root) {
            throw new IllegalArgumentException("allot.agent.job-uids needs the agent to run as root");
        }
        return new JobSandbox(Optional.empty(), setpriv("per-replica uids"), jobPath, Integer.parseInt(m.group(1)),
                Integer.parseInt(m.group(2)), 0);
    }

    private static String setpriv(String forWhom) {
        return List.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv").stream()
                .filter(p -> Files.isExecutable(Path.of(p))).findFirst()
                .orElseThrow(() -> new IllegalStateException("setpriv (util-linux) is needed to run jobs as " + forWhom));
    }

    private boolean perReplica() {
        return lastUid >= firstUid;
    }

    /** The user the replica runs as (empty: the agent's own); with per-replica uids, one no running replica has. */
    public synchronized Optional<User> lease(ReplicaKey key) {
        if (!perReplica()) {
            return user;
        }
        java.util.Set<Integer> taken = new java.util.HashSet<>();
        leased.values().forEach(u -> taken.add(u.uid()));
        for (long uid = firstUid; uid <= lastUid; uid++) {
            if (!taken.contains((int) uid)) {
                User u = new User("allot-job-" + uid, (int) uid, (int) uid, false);
                leased.put(key, u);
                return Optional.of(u);
            }
        }
        throw new IllegalStateException("every uid of allot.agent.job-uids " + firstUid + "-" + lastUid + " is in use");
    }

    /** A replica taken over after an agent restart runs as {@code uid} (its dirs' owner): that uid stays taken. */
    public synchronized void readopt(ReplicaKey key, int uid) {
        if (perReplica() && uid >= firstUid && uid <= lastUid) {
            leased.put(key, new User("allot-job-" + uid, uid, uid, false));
        }
    }

    /** The replica has exited: its uid is free again (after its dirs went back to the agent, see {@link #disown}). */
    public synchronized void release(ReplicaKey key) {
        leased.remove(key);
    }

    /** Whether each replica gets a uid of its own (and its dirs go back to the agent when it ends). */
    public boolean isolatesReplicas() {
        return perReplica();
    }

    /** The user jobs run as; empty when they run as the agent's own user (or each as its own uid). */
    public Optional<User> user() {
        return user;
    }

    /** Who jobs run as, for logs. */
    public String describe() {
        String at = nice == 0 ? "" : " at nice " + nice;
        if (perReplica()) {
            return "a uid of its own per replica (" + firstUid + "-" + lastUid + ")" + at;
        }
        return user.map(u -> u.name() + " (uid " + u.uid() + ")").orElse("the agent's own user") + at;
    }

    /** The argv that runs {@code command} as {@code as}, its environment read from stdin. */
    public List<String> wrap(List<String> command, Optional<User> as) {
        List<String> argv = new ArrayList<>();
        as.ifPresent(u -> argv.addAll(List.of(setpriv, "--reuid=" + u.uid(), "--regid=" + u.gid(),
                u.named() ? "--init-groups" : "--clear-groups", "--")));
        argv.addAll(List.of("/bin/sh", "-c", LOADER, "allot-job"));
        argv.addAll(command);
        return argv;
    }

    /**
     * The job's environment: a minimal {@code PATH} and {@code HOME} (its working directory), then the job's
     * own env, then its secrets, then Allot's variables, which win. Names that a shell cannot export are
     * dropped (returned in {@code dropped}).
     */
    public Map<String, String> environment(Optional<User> as, Path home, Map<String, String> declared,
                                           Map<String, String> secrets, Map<String, String> allot, List<String> dropped) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("PATH", jobPath);
        env.put("HOME", home.toString());
        as.ifPresent(u -> {
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
    public void own(Path dir, Optional<User> as) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (as.isPresent()) {
                chown(dir, as.get().uid(), as.get().gid());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " to the job's user", e);
        }
    }

    /** Gives {@code dir} and its contents back to the agent (a uid freed for the next replica must not reach them). */
    public void disown(Path dir) {
        try {
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                chown(dir, 0, 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " back to the agent", e);
        }
    }

    private static void chown(Path dir, int uid, int gid) throws IOException {
        {
            var lookup = dir.getFileSystem().getUserPrincipalLookupService();
            var owner = lookup.lookupPrincipalByName(Integer.toString(uid));
            var group = lookup.lookupPrincipalByGroupName(Integer.toString(gid));
            try (var walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS);
                    view.setOwner(owner);
                    view.setGroup(group);
                }
            }
        }
    }

    /** Whether the job's user can reach (traverse) {@code dir}: a real look, as that user. */
    public boolean reachable(Path dir) {
        Optional<User> as = perReplica() ? Optional.of(new User("probe", firstUid, firstUid, false)) : user;
        if (as.isEmpty()) {
            return true;
        }
        try {
            Process look = new ProcessBuilder(setpriv, "--reuid=" + as.get().uid(), "--regid=" + as.get().gid(),
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
