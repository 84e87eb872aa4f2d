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

    /** SIGKILL to the root and every descendant. */
    public static void kill(ProcessHandle root) {
        List<ProcessHandle> descendants = root.descendants().toList();
        root.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }
}
