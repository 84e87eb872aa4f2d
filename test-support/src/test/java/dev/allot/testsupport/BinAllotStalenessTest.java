package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/lib.sh}'s {@code older_than_sources}, which every {@code bin/allot} command asks before it runs a jar it
 * built: a jar is stale when a main source of its module, or of a sibling module it is built from, is newer. Over a
 * made-up tree: {@code service} depends on {@code lib} (which depends on {@code base}) and, in test scope, on
 * {@code testlib}. Before, {@code bin/allot up} checked only the module, schemas and scheduler-core, and ran a
 * scheduler-service built before a change to kafka-edge.
 */
class BinAllotStalenessTest {

    private static final Instant BUILT = Instant.parse("2026-12-07T09:00:00Z");

    @TempDir
    Path root;

    @BeforeEach
    void aTreeBuiltAfterItsSources() throws IOException {
        module("service", dependency("lib", null) + dependency("testlib", "test")
                + "<dependency><groupId>org.other</groupId><artifactId>allot-elsewhere</artifactId></dependency>");
        module("lib", dependency("base", null));
        module("base", "");
        module("testlib", "");
        module("elsewhere", "");
        write("pom.xml", "<project/>", BUILT.minusSeconds(100));
        write("service/target/app.jar", "jar", BUILT);
    }

    @Test
    void givenASiblingTwoLevelsDown_whenListed_thenItIsThere_andTestScopeAndOtherGroupsAreNot() throws Exception {
        assertThat(shell("module_siblings service").lines()).containsExactly("service", "lib", "base");
    }

    @Test
    void givenNothingNewer_whenAsked_thenTheJarIsFresh() throws Exception {
        assertThat(stale()).isFalse();
    }

    @Test
    void givenASourceOfASiblingTwoLevelsDownChanged_whenAsked_thenTheJarIsStale() throws Exception {
        write("base/src/main/Base.java", "class Base {}", BUILT.plusSeconds(10));

        assertThat(stale()).isTrue();
    }

    @Test
    void givenAPomChanged_whenAsked_thenTheJarIsStale_theParentsToo() throws Exception {
        write("lib/pom.xml", pom(dependency("base", null)), BUILT.plusSeconds(10));
        assertThat(stale()).isTrue();

        write("lib/pom.xml", pom(dependency("base", null)), BUILT.minusSeconds(100));
        write("pom.xml", "<project/>", BUILT.plusSeconds(10));
        assertThat(stale()).isTrue();
    }

    @Test
    void givenOnlyATestOnlySiblingOrATestSourceChanged_whenAsked_thenTheJarIsFresh() throws Exception {
        write("testlib/src/main/Testlib.java", "class Testlib {}", BUILT.plusSeconds(10));
        write("service/src/test/ServiceTest.java", "class ServiceTest {}", BUILT.plusSeconds(10));
        write("elsewhere/src/main/Elsewhere.java", "class Elsewhere {}", BUILT.plusSeconds(10));

        assertThat(stale()).isFalse();
    }

    @Test
    void givenNoJar_whenAsked_thenItIsStale() throws Exception {
        Files.delete(root.resolve("service/target/app.jar"));

        assertThat(stale()).isTrue();
    }

    private boolean stale() throws Exception {
        return shell("older_than_sources \"$ALLOT_ROOT/service/target/app.jar\" service && echo stale || echo fresh")
                .strip().equals("stale");
    }

    private String shell(String script) throws Exception {
        Path lib = RepositoryRoot.get().resolve("bin/lib.sh");
        ProcessBuilder builder = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; source \"$1\"; ALLOT_ROOT=\"$2\"; " + script, "bash", lib.toString(), root.toString());
        builder.environment().put("ALLOT_HOME", root.resolve("home").toString());
        Process process = builder.start();
        process.getOutputStream().close();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(stderr).isZero();
        return stdout;
    }

    private void module(String name, String dependencies) throws IOException {
        write(name + "/pom.xml", pom(dependencies), BUILT.minusSeconds(100));
        String type = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        write(name + "/src/main/" + type + ".java", "class " + type + " {}", BUILT.minusSeconds(100));
    }

    private static String pom(String dependencies) {
        return "<project>\n  <parent>\n    <groupId>dev.allot</groupId>\n    <artifactId>allot-parent</artifactId>\n"
                + "  </parent>\n  <dependencies>\n" + dependencies + "  </dependencies>\n</project>\n";
    }

    private static String dependency(String module, String scope) {
        return "    <dependency>\n      <groupId>dev.allot</groupId>\n      <artifactId>allot-" + module
                + "</artifactId>\n" + (scope == null ? "" : "      <scope>" + scope + "</scope>\n") + "    </dependency>\n";
    }

    private void write(String path, String content, Instant modified) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        Files.setLastModifiedTime(file, FileTime.from(modified));
    }
}
