package dev.allot.nodeagent.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFileTest {

    @TempDir
    Path dir;

    @Test
    void theOwnersOwnFileIsPrivate() throws Exception {
        assertThat(PrivateFile.whyNot(file("a", "rw-------"))).isEmpty();
        assertThat(PrivateFile.whyNot(file("b", "r--------"))).isEmpty();
    }

    @Test
    void othersOrAWritingGroupMakeItPublic() throws Exception {
        assertThat(PrivateFile.whyNot(file("world", "rw-r--r--"))).get().asString().contains("chmod 600");
        assertThat(PrivateFile.whyNot(file("others-write", "rw-----w-"))).isPresent();
        assertThat(PrivateFile.whyNot(file("group-write", "rw-rw----"))).isPresent();
    }

    /** A Kubernetes Secret volume for a non-root pod: root owns the file, the pod's fsGroup reads it. */
    @Test
    void aGroupMayReadOnlyWhatRootOwns() throws Exception {
        Path groupRead = file("group-read", "r--r-----");
        UserPrincipal owner = Files.getOwner(groupRead);
        if ("root".equals(owner.getName())) {
            assertThat(PrivateFile.whyNot(groupRead)).isEmpty();
            Files.setOwner(groupRead, groupRead.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName("nobody"));
        }
        Optional<String> why = PrivateFile.whyNot(groupRead);
        assertThat(why).get().asString().contains("owned by " + Files.getOwner(groupRead).getName())
                .contains("only when root owns it");
    }

    private Path file(String name, String mode) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, "x".repeat(64));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }
}
