package dev.allot.nodeagent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The supervisor script on a real /bin/sh: what it records, and that it outlives its command's SIGTERM. */
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
        // the command runs once the child has exec'd sleep (a child forked but not yet exec'd would lose the signal)
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> supervisor.descendants()
                .anyMatch(p -> p.info().command().map(c -> c.endsWith("/sleep")).orElse(false)));

        ProcessTree.terminate(supervisor.toHandle());

        assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(supervisor.exitValue()).isEqualTo(143);
        assertThat(Supervisor.read(exitFile)).hasValueSatisfying(exit -> assertThat(exit.code()).isEqualTo(143));
    }
}
