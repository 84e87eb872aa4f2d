package dev.allot.core.preemption;

import java.util.SortedMap;

/**
 * A running job that the preemptor is allowed to displace.
 *
 * @param allocated false for unallocated jobs (displaced first)
 * @param gpus GPUs the whole gang holds: what is lost if it is displaced
 * @param workSinceCheckpointMillis work a preemption throws away
 * @param gpusByNode GPUs it holds per node id (a gang spans nodes)
 */
public record Candidate(String jobId, boolean allocated, int gpus, boolean resumable, long workSinceCheckpointMillis,
        SortedMap<String, Integer> gpusByNode) {
}
