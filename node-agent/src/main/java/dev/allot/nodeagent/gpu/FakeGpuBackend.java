package dev.allot.nodeagent.gpu;

import java.util.List;
import java.util.stream.IntStream;

/** N GPUs that exist only on paper; utilisation unknown. For laptops, CI and local clusters of fake nodes. */
public final class FakeGpuBackend implements GpuBackend {

    private final List<Gpu> gpus;

    public FakeGpuBackend(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a fake node needs at least one GPU, got " + count);
        }
        this.gpus = IntStream.range(0, count).mapToObj(i -> new Gpu(i, "fake", 0, null)).toList();
    }

    @Override
    public List<Gpu> gpus() {
        return gpus;
    }

    @Override
    public String model() {
        return "fake";
    }
}
