package dev.allot.e2e.observability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's promtool (package prometheus; .ci/run installs it), run in deploy/prometheus. */
final class Promtool {

    record Result(int exit, String output) {
    }

    private Promtool() {
    }

    static Result run(String... args) throws IOException, InterruptedException {
        String binary = System.getenv().getOrDefault("ALLOT_PROMTOOL", "promtool");
        List<String> command = new ArrayList<>(List.of(binary));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("promtool", ".out");
        Process p;
        try {
            p = new ProcessBuilder(command).directory(ObservabilityFiles.prometheus().toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("promtool is not installed: apt-get install prometheus (.ci/run does it),"
                    + " or set ALLOT_PROMTOOL", e);
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("promtool " + String.join(" ", args) + " did not finish in 60 s");
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        Files.deleteIfExists(out);
        return new Result(p.exitValue(), output);
    }
}
