package dev.allot.testsupport.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Renders a kustomization with a real kustomize: {@code $ALLOT_KUSTOMIZE}, else {@code kustomize build},
 * else {@code kubectl kustomize} (kubectl embeds kustomize; the build machines have kubectl 1.32 with
 * kustomize 5.5). Nothing is fetched: the kustomizations use only local files.
 */
final class Kustomize {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private Kustomize() {
    }

    /** The rendered objects of the kustomization in {@code dir}, in kustomize's order. */
    static List<JsonNode> build(Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(command());
        command.add(dir.toString());
        Path out = Files.createTempFile("kustomize", ".yaml");
        Path err = Files.createTempFile("kustomize", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 120 s");
            }
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + stderr);
            }
            if (!stderr.isBlank()) {
                // kustomize warns about deprecated fields on stderr; the manifests must use none
                throw new IllegalStateException(String.join(" ", command) + " warned: " + stderr);
            }
            return documents(out);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static List<JsonNode> documents(Path yaml) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class)
                .readValues(YAML.getFactory().createParser(yaml.toFile()))) {
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isEmpty()) {
                    docs.add(doc);
                }
            }
        }
        return docs;
    }

    private static List<String> command() {
        String explicit = System.getenv("ALLOT_KUSTOMIZE");
        if (explicit != null && !explicit.isBlank()) {
            return List.of(explicit.split(" "));
        }
        Optional<Path> kustomize = onPath("kustomize");
        if (kustomize.isPresent()) {
            return List.of(kustomize.get().toString(), "build");
        }
        Optional<Path> kubectl = onPath("kubectl");
        if (kubectl.isPresent()) {
            return List.of(kubectl.get().toString(), "kustomize");
        }
        throw new IllegalStateException("neither kustomize nor kubectl is on the PATH (" + System.getenv("PATH")
                + "): install kubectl (it embeds kustomize) or set ALLOT_KUSTOMIZE to a kustomize command,"
                + " e.g. 'kustomize build'");
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(File.pathSeparator)).map(d -> Path.of(d, name))
                .filter(Files::isExecutable).findFirst();
    }
}
