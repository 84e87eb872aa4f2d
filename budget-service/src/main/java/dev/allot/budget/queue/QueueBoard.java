package dev.allot.budget.queue;

import dev.allot.schemas.QueueSnapshot;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The latest queue snapshot of every cluster, as the scheduler published it. */
public final class QueueBoard {

    private final Map<String, QueueSnapshot> latest = new ConcurrentHashMap<>();

    public void snapshot(QueueSnapshot snapshot) {
        latest.merge(snapshot.getCluster(), snapshot,
                (old, fresh) -> fresh.getAt().isBefore(old.getAt()) ? old : fresh);
    }

    public Optional<QueueSnapshot> latest(String cluster) {
        return Optional.ofNullable(latest.get(cluster));
    }
}
