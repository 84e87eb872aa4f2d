package dev.allot.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The user CLI as a person runs it: {@code java -jar cli/target/allot-cli.jar COMMAND --server URL --token T ...},
 * as the user the token names.
 */
final class CliProcess {

    record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Path jar;
    private final String server;
    private final String user;
    private final String token;

    /** @param token a bearer token (test-support's {@code TestTokens}) naming {@code user} */
    CliProcess(String server, String user, String token) {
        this.user = user;
        this.token = token;
        Path root = Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
        this.jar = root.resolve("cli/target/allot-cli.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the cli module first (it comes before e2e-tests)");
        }
        this.server = server;
    }

    Result run(String... args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar",
                jar.toString(), args[0], "--server", server, "--user", user, "--token", token, "--width", "120"));
        command.addAll(List.of(args).subList(1, args.length));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("allot " + String.join(" ", args) + " did not end in 2 minutes");
        }
        return new Result(process.exitValue(), out.join(), err.join());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
