package dev.allot.nodeagent.gpu;

/**
 * One GPU of a node as the backend sees it.
 *
 * @param utilisation 0..1, or null when unknown (fake GPUs)
 */
public record Gpu(int index, String name, long memoryMiB, Double utilisation) {
}
