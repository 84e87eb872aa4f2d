package dev.allot.nodeagent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The supervisor script on a real /bin/sh: what it records, and a SIGTERM that comes before its command. */
class SupervisorTest {

    @Test
    void givenACommandThatExits_whenSupervised_thenItsStatusIsRecordedAndReturned(@TempDir Path dir) throws Exception {
        Path exitFile = dir.resolve("exit");
        Process supervisor = new ProcessBuilder(Supervisor.wrap(List.of("sh", "-c", "exit 7"), exitFile)).start();

        assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(supervisor.exitValue()).isEqualTo(7);
        assertThat(Supervisor.read(exitFile)).hasValueSatisfying(exit -> assertThat(exit.code()).isEqualTo(7));
    }

    @Test
    void givenACommandThatIsTerminated_whenSupervised_thenTheSupervisorOutlivesTheSignalAndRecords143(@TempDir Path dir)
            throws Exception {
        Path exitFile = dir.resolve("exit");
        Process supervisor = new ProcessBuilder(Supervisor.wrap(List.of("sleep", "600"), exitFile)).start();
        while (supervisor.descendants().findAny().isEmpty()) {
            assertThat(supervisor.isAlive()).isTrue();
            Thread.onSpinWait();
        }

        ProcessTree.terminate(supervisor.toHandle());

        assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(supervisor.exitValue()).isEqualTo(143);
        assertThat(Supervisor.read(exitFile)).hasValueSatisfying(exit -> assertThat(exit.code()).isEqualTo(143));
    }

    /**
     * A stop right after the start: the SIGTERM reaches the supervisor's shell before its command exists. The
     * shell either dies of it (before its trap is set) or remembers it and does not start the command; it must
     * never swallow it and start a command nobody will signal again (which then runs until the SIGKILL).
     */
    @Test
    void givenASigtermBeforeTheCommandStarts_whenSupervised_thenTheCommandNeverRunsOnAfterIt(@TempDir Path dir)
            throws Exception {
        List<Process> supervisors = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Process supervisor = new ProcessBuilder(Supervisor.wrap(List.of("sleep", "600"), dir.resolve("exit-" + i)))
                    .start();
            ProcessTree.terminate(supervisor.toHandle());
            supervisors.add(supervisor);
        }
        for (int i = 0; i < supervisors.size(); i++) {
            Process supervisor = supervisors.get(i);
            boolean ended = supervisor.waitFor(10, TimeUnit.SECONDS);
            if (!ended) {
                supervisors.forEach(p -> ProcessTree.kill(p.toHandle()));
            }
            assertThat(ended).as("supervisor %d ended after its SIGTERM", i).isTrue();
            assertThat(supervisor.exitValue()).isEqualTo(143);
            Path exitFile = dir.resolve("exit-" + i);
            // Recorded when the trap was set: the stop is on record as the command's end.
            Supervisor.read(exitFile).ifPresent(exit -> assertThat(exit.code()).isEqualTo(143));
        }
    }
}
