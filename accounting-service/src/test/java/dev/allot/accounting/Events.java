package dev.allot.accounting;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import java.time.Instant;
import java.util.UUID;

/** Test events. */
public final class Events {

    private Events() {
    }

    public static UsageReported usage(String job, String cluster, String account, long start, long end,
                                      double gpuSeconds, boolean charged) {
        int gpus = (int) Math.max(1, Math.ceil(gpuSeconds / Math.max(1e-3, (end - start) / 1000.0)));
        return UsageReported.newBuilder().setJobId(job).setCluster(cluster).setAccount(account).setNodeId("n1")
                .setGpus(gpus).setIntervalStart(Instant.ofEpochMilli(start)).setIntervalEnd(Instant.ofEpochMilli(end))
                .setGpuSeconds(gpuSeconds).setChargeMode(charged ? ChargeMode.ALLOCATED : ChargeMode.UNALLOCATED)
                .build();
    }

    public static BudgetEvent budget(String path, String parent, double share, long at) {
        return BudgetEvent.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.ofEpochMilli(at))
                .setPayload(BudgetDefined.newBuilder().setPath(path).setParent(parent).setShare(share)
                        .setEffectiveAt(Instant.ofEpochMilli(at)).build())
                .build();
    }

    public static NodeStatus node(String node, String cluster, int gpus, long at) {
        return NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.ofEpochMilli(at))
                .setNodeId(node)
                .setPayload(NodeRegistered.newBuilder().setCluster(cluster).setGpuCount(gpus).setGpuModel("fake")
                        .setEpoch(1).setAgentId("test").build())
                .build();
    }

    public static AccountDemand demand(String cluster, String account, long start, long end, double gpus) {
        return AccountDemand.newBuilder().setCluster(cluster).setAccount(account)
                .setIntervalStart(Instant.ofEpochMilli(start)).setIntervalEnd(Instant.ofEpochMilli(end))
                .setDemandedGpus(gpus).setRunningGpus(0).setWaitingGpus(gpus).build();
    }
}
