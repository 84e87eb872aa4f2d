package dev.allot.nodeagent.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Real NVIDIA GPUs, read through nvidia-smi on each sample. */
public final class NvidiaSmiBackend implements GpuBackend {

    private final String binary;
    private final String model;
    private volatile List<Gpu> last;

    public NvidiaSmiBackend(String binary) {
        this.binary = binary;
        this.last = query();
        if (last.isEmpty()) {
            throw new IllegalStateException("nvidia-smi reports no GPU");
        }
        this.model = last.get(0).name();
    }

    @Override
    public List<Gpu> gpus() {
        try {
            last = query();
        } catch (RuntimeException e) {
            // A flaky nvidia-smi must not take the node down: keep the GPU set, forget utilisation.
            last = last.stream().map(g -> new Gpu(g.index(), g.name(), g.memoryMiB(), null)).toList();
        }
        return last;
    }

    @Override
    public String model() {
        return model;
    }

    private List<Gpu> query() {
        List<String> argv = new ArrayList<>();
        argv.add(binary);
        argv.addAll(NvidiaSmiParser.QUERY_ARGS);
        try {
            Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("nvidia-smi timed out");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("nvidia-smi exited " + process.exitValue() + ": "
                        + new String(out, StandardCharsets.UTF_8));
            }
            return NvidiaSmiParser.parse(new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** True when the binary can be found: an absolute path that exists, or a name on the PATH. */
    public static boolean available(String binary) {
        if (binary.contains("/")) {
            return java.nio.file.Files.isExecutable(java.nio.file.Path.of(binary));
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, binary))) {
                return true;
            }
        }
        return false;
    }
}
