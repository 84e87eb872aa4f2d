package dev.allot.nodeagent.process;

import java.util.List;

/**
 * Signals a job's whole process tree, not just its first process: a job is usually {@code sh -c ...} or a
 * launcher whose children hold the GPUs; signalling only the shell would leave them running.
 * (The JDK sends SIGTERM for {@code destroy()} and SIGKILL for {@code destroyForcibly()} on Unix.)
 */
public final class ProcessTree {

    private ProcessTree() {
    }

    /** SIGTERM to the root and every descendant. */
    public static void terminate(ProcessHandle root) {
        List<ProcessHandle> descendants = root.descendants().toList();
        root.destroy();
        descendants.forEach(ProcessHandle::destroy);
    }

    /** SIGKILL to every descendant, then to the root. */
    public static void kill(ProcessHandle root) {
        List<ProcessHandle> descendants = root.descendants().toList();
        descendants.forEach(ProcessHandle::destroyForcibly);
        root.destroyForcibly();
    }

    /**
     * SIGKILL to the command under a {@link Supervisor} (every descendant of the root), not to the supervisor,
     * which records how its command ended and then exits by itself; the root only when it has no descendant
     * (its command has not started or has already ended). Returns whether the root was spared.
     */
    public static boolean killCommand(ProcessHandle supervisor) {
        List<ProcessHandle> descendants = supervisor.descendants().toList();
        descendants.forEach(ProcessHandle::destroyForcibly);
        if (descendants.isEmpty()) {
            supervisor.destroyForcibly();
            return false;
        }
        return true;
    }

    /**
     * True while the process runs: alive and not a zombie. A zombie has released everything it held (GPU
     * memory included); only its exit status waits to be collected, by a parent or by init, which in a
     * container may take a while.
     */
    public static boolean running(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(process.pid()), "stat"));
            int afterName = stat.lastIndexOf(')');
            char state = afterName >= 0 && afterName + 2 < stat.length() ? stat.charAt(afterName + 2) : 'R';
            return state != 'Z' && state != 'X';
        } catch (java.io.IOException | RuntimeException e) {
            return process.isAlive(); // no /proc (not Linux), or it is gone
        }
    }

    /** The root and its descendants as they are now: what a stop signalled, to be waited for. */
    public static List<ProcessHandle> snapshot(ProcessHandle root) {
        List<ProcessHandle> all = new java.util.ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    /**
     * Waits (at most {@code atMost}) until every one of {@code processes} is gone. Polled: {@code onExit()} of a
     * process that is not our child is itself a poll with a back-off of hundreds of milliseconds.
     */
    public static void awaitGone(List<ProcessHandle> processes, java.time.Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (processes.stream().anyMatch(ProcessTree::running) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
