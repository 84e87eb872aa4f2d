package dev.allot.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The core is a plain library: no messaging, no framework, no clock. */
class ArchitectureTest {
    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        // only the module's own classes directory: scanning the whole classpath is slow
        core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(java.util.Set.of(com.tngtech.archunit.core.importer.Location.of(
                        dev.allot.core.Scheduler.class.getProtectionDomain().getCodeSource().getLocation())));
    }

    @Test
    void coreClassesAreImported() {
        org.assertj.core.api.Assertions.assertThat(core.contain("dev.allot.core.Scheduler")).isTrue();
    }

    @Test
    void noKafkaQuarkusSmallRyeOrAvro() {
        noClasses().that().resideInAPackage("dev.allot.core..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "io.quarkus..",
                        "io.smallrye..", "org.apache.avro..")
                .check(core);
    }

    @Test
    void noClock() {
        noClasses().that().resideInAPackage("dev.allot.core..")
                .should().dependOnClassesThat().areAssignableTo(java.time.Clock.class)
                .check(core);
    }

    @Test
    void noWallClockReads() {
        noClasses().that().resideInAPackage("dev.allot.core..")
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(java.time.Instant.class, "now")
                .check(core);
    }
}
