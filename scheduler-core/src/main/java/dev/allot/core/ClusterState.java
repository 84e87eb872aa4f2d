package dev.allot.core;

import dev.allot.core.budget.EntitlementHistory;
import dev.allot.core.cluster.Node;
import dev.allot.core.placement.FreeIndex;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.reservation.Reservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.TreeMap;

/** Everything the core keeps about one cluster. */
final class ClusterState {
    final String name;
    final TreeMap<String, Node> nodes = new TreeMap<>();
    final FreeIndex open = new FreeIndex();
    /** Waiting jobs in arrival order (the pass sorts them). */
    final LinkedHashMap<String, Job> waiting = new LinkedHashMap<>();
    final TreeMap<String, Job> running = new TreeMap<>();
    final EntitlementHistory entitlement = new EntitlementHistory();
    /** GPUs held per account (both charge modes), for policies' admission limits. */
    final HashMap<String, Integer> runningGpus = new HashMap<>();
    /** Account to {charged GPUs, unallocated GPUs} currently running: the rate the ledger accrues. */
    final TreeMap<String, int[]> rates = new TreeMap<>();
    final ArrayList<Reservation> reservations = new ArrayList<>();
    AccountRanking lastRanking = AccountRanking.flat();

    ClusterState(String name) {
        this.name = name;
    }

    int capacityGpus() {
        int c = 0;
        for (Node n : nodes.values()) {
            if (!n.lost()) {
                c += n.gpus();
            }
        }
        return c;
    }

    Reservation reservationOf(String jobId) {
        for (Reservation r : reservations) {
            if (r.jobId().equals(jobId)) {
                return r;
            }
        }
        return null;
    }
}
