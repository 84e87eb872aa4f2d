package dev.allot.nodeagent.gpu;

import java.util.Collection;
import java.util.List;
import java.util.OptionalDouble;

/** Where a node's GPUs come from: real NVIDIA GPUs or a fake set for laptops and tests. */
public interface GpuBackend {

    /** The node's GPUs, freshly sampled (utilisation included when known). */
    List<Gpu> gpus();

    /** Model name reported at registration, e.g. {@code NVIDIA H100 80GB HBM3} or {@code fake}. */
    String model();

    /** Mean utilisation (0..1) of the given GPU indices, freshly sampled; empty when unknown. */
    default OptionalDouble meanUtilisation(Collection<Integer> indices) {
        List<Gpu> sampled = gpus();
        return sampled.stream()
                .filter(gpu -> indices.contains(gpu.index()) && gpu.utilisation() != null)
                .mapToDouble(Gpu::utilisation)
                .average();
    }
}
