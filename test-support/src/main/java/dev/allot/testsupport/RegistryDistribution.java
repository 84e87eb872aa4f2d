package dev.allot.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the unpacked Apicurio Registry distribution: the {@code allot.registry.home} system property
 * (set by the build), else {@code .allot/dist/apicurio-registry-3.3.3} above the working directory;
 * unpacks it from the local Maven repository when only the archive is there.
 */
public final class RegistryDistribution {

    public static final String VERSION = "3.3.3";
    static final String ARCHIVE = "io/apicurio/apicurio-registry-app/" + VERSION + "/apicurio-registry-app-" + VERSION
            + "-all.tar.gz";

    private RegistryDistribution() {
    }

    public static Path locate() {
        Path home = configuredHome();
        if (Files.isRegularFile(home.resolve("quarkus-run.jar"))) {
            return home;
        }
        Path archive = Path.of(System.getProperty("maven.repo.local",
                System.getProperty("user.home") + "/.m2/repository")).resolve(ARCHIVE);
        if (!Files.isRegularFile(archive)) {
            throw new IllegalStateException("Apicurio Registry " + VERSION + " is neither unpacked at " + home
                    + " nor in the local Maven repository (" + archive + "); build the test-support module first"
                    + " (./mvnw -pl test-support -am install -DskipTests)");
        }
        try {
            Files.createDirectories(home);
            Process tar = new ProcessBuilder("tar", "xzf", archive.toString(), "-C", home.toString())
                    .inheritIO().start();
            if (tar.waitFor() != 0) {
                throw new IllegalStateException("could not unpack " + archive);
            }
            return home;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path configuredHome() {
        String configured = System.getProperty("allot.registry.home");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        return RepositoryRoot.find().orElse(Path.of("").toAbsolutePath())
                .resolve(".allot/dist/apicurio-registry-" + VERSION);
    }
}
