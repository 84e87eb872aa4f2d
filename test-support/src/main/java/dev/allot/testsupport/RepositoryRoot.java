package dev.allot.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The Allot checkout a test runs in: the nearest directory above the working one holding {@code bin/allot}. */
public final class RepositoryRoot {

    private RepositoryRoot() {
    }

    public static Optional<Path> find() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/allot")) && Files.isDirectory(p.resolve("schemas"))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    public static Path get() {
        return find().orElseThrow(() -> new IllegalStateException(
                "no Allot checkout (bin/allot) above " + Path.of("").toAbsolutePath()));
    }
}
