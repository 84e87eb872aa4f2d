package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code bin/allot} subcommand answers {@code --help} and {@code -h}, first or second argument,
 * with its usage and does nothing else: exit 0, the usage on stdout, no work reported on stderr and
 * nothing written to ALLOT_HOME (a command that builds, starts or stops something logs and writes there).
 */
class BinAllotHelpTest {

    @TempDir
    Path home;

    @TestFactory
    Stream<DynamicTest> everySubcommandAnswersHelpWithItsUsageAndDoesNothingElse() throws IOException {
        Path root = RepositoryRoot.get();
        List<String> names;
        try (Stream<Path> scripts = Files.list(root.resolve("bin/commands"))) {
            names = scripts.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sh"))
                    .map(n -> n.substring(0, n.length() - 3)).sorted().toList();
        }
        assertThat(names).contains("up", "down", "test", "infra", "budget", "simulate");
        return names.stream().flatMap(name -> Stream.of(List.of(name, "--help"), List.of(name, "-h"),
                List.of(name, "sub", "--help")).map(args -> DynamicTest.dynamicTest(String.join(" ", args), () -> {
                    Result help = run(root, args);
                    assertThat(help.exitCode()).as(help.stderr()).isZero();
                    assertThat(help.stdout()).startsWith("usage: bin/allot " + name);
                    assertThat(help.stderr()).as("a help request reports no work").isEmpty();
                    try (Stream<Path> written = Files.list(home)) {
                        assertThat(written).as("a help request writes nothing").isEmpty();
                    }
                })));
    }

    @Test
    void givenAnUnknownCommand_whenRun_thenItFailsAndListsTheCommands() throws Exception {
        Result unknown = run(RepositoryRoot.get(), List.of("no-such-command"));
        assertThat(unknown.exitCode()).isNotZero();
        assertThat(unknown.stderr()).contains("unknown command 'no-such-command'").contains("simulate");
    }

    private record Result(int exitCode, String stdout, String stderr) {
    }

    private Result run(Path root, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/allot").toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("ALLOT_HOME", home.toString());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        process.getOutputStream().close();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        return new Result(process.exitValue(), stdout, stderr);
    }
}
