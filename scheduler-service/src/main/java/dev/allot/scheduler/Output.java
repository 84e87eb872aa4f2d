package dev.allot.scheduler;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.jboss.logging.Logger;

/** A record the loop writes in its current transaction: topic, key and Avro value. */
public record Output(String topic, String key, SpecificRecord value) {

    /** Debug: one line per job decision or node command, so a replay can be compared with what was committed. */
    static void logDecisions(Logger log, String how, long now, List<Output> out) {
        for (Output o : out) {
            String what = switch (o.value()) {
                case JobEvent e -> e.getPayload() instanceof JobPlaced p
                        ? "JobPlaced " + e.getJobId() + " " + p.getAssignments().stream()
                                .map(a -> a.getNodeId() + a.getGpuIndices()).toList()
                        : e.getPayload().getClass().getSimpleName() + " " + e.getJobId();
                case NodeCommand c -> c.getPayload() instanceof StopJob stop
                        ? "StopJob " + stop.getJobId() + " " + stop.getNodeId() + " " + stop.getReason()
                        : c.getPayload() instanceof StartJob start
                                ? "StartJob " + start.getJobId() + " " + start.getNodeId() + start.getGpuIndices()
                                : null;
                default -> null;
            };
            if (what != null) {
                log.debugf("%s at %d: %s", how, now, what);
            }
        }
    }
}
