package dev.allot.nodeagent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The loader as the agent runs it: a real /bin/sh reads the job's environment from stdin and becomes the job. */
class JobLoaderTest {

    @Test
    void givenValuesAShellWouldMangle_whenTheLoaderRuns_thenTheJobSeesThemExactly() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PLAIN", "bar");
        env.put("QUOTED", "it's \"quoted\" and $HOME `date` \\n \\");
        env.put("LINES", "first\n\n  third\n");
        env.put("SPACES", "  lead and trail  ");
        env.put("EMPTY", "");

        Map<String, String> seen = run(JobSandbox.script(env));

        assertThat(seen).containsAllEntriesOf(env);
        // the loader's own variables are not exported: the job does not see them
        assertThat(seen).doesNotContainKeys("allot_env", "allot_line");
    }

    @Test
    void givenALastLineWithoutANewline_whenTheLoaderRuns_thenItIsNotLost() throws Exception {
        Map<String, String> seen = run("export FIRST='1'\nexport LAST='2'".getBytes(StandardCharsets.UTF_8));

        assertThat(seen).containsEntry("FIRST", "1").containsEntry("LAST", "2");
    }

    @Test
    void givenAJobVariableNamedLikeTheLoadersOwn_whenTheLoaderRuns_thenTheJobsValueWins() throws Exception {
        Map<String, String> seen = run(JobSandbox.script(Map.of("allot_line", "mine", "allot_env", "also mine")));

        assertThat(seen).containsEntry("allot_line", "mine").containsEntry("allot_env", "also mine");
    }

    @Test
    void givenAScriptThatDoesNotParse_whenTheLoaderRuns_thenTheJobDoesNotRun() throws Exception {
        Process loader = start();
        write(loader, "export BROKEN='unterminated\n".getBytes(StandardCharsets.UTF_8));

        byte[] out = loader.getInputStream().readAllBytes();
        assertThat(loader.waitFor(30, TimeUnit.SECONDS)).isTrue();
        // dash leaves on an eval syntax error with 2 (other shells get to "exit 126"): either way not the job's 0
        assertThat(loader.exitValue()).isIn(2, 126);
        assertThat(out).as("the job's output").isEmpty();
    }

    /** The job's environment as it saw it ({@code env -0}: NUL-separated, so values may hold newlines). */
    private static Map<String, String> run(byte[] script) throws Exception {
        Process loader = start();
        write(loader, script);
        byte[] out = loader.getInputStream().readAllBytes();
        assertThat(loader.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(loader.exitValue()).isZero();
        Map<String, String> env = new TreeMap<>();
        for (String entry : new String(out, StandardCharsets.UTF_8).split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    private static Process start() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(List.of("/bin/sh", "-c", JobSandbox.LOADER, "allot-job", "env", "-0"));
        builder.environment().clear();
        builder.environment().putAll(JobSandbox.LAUNCH_ENV);
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        return builder.start();
    }

    private static void write(Process loader, byte[] script) throws IOException {
        try (OutputStream stdin = loader.getOutputStream()) {
            stdin.write(script);
        }
    }
}
