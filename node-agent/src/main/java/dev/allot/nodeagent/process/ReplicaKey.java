package dev.allot.nodeagent.process;

/** One replica of one job on one node: what a StartJob creates and what runs at most once at a time. */
public record ReplicaKey(String nodeId, String jobId, int replicaIndex) {

    @Override
    public String toString() {
        return jobId + ".r" + replicaIndex + "@" + nodeId;
    }
}
