package dev.allot.core.reservation;

import dev.allot.core.cluster.Node;
import dev.allot.core.placement.FreeIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A cluster's reservations, in the order they were made, and the nodes' reservation marks in
 * step with them: a reserved node is out of the open set until its reservation goes. Internal.
 */
public final class ReservationBook {
    private final ArrayList<Reservation> reservations = new ArrayList<>();
    private final Map<String, Node> nodes;
    private final FreeIndex open;

    /** @param nodes the cluster's nodes by id; @param open its open set */
    public ReservationBook(Map<String, Node> nodes, FreeIndex open) {
        this.nodes = nodes;
        this.open = open;
    }

    public boolean isEmpty() {
        return reservations.isEmpty();
    }

    public int size() {
        return reservations.size();
    }

    /** In the order they were made (shared: do not modify). */
    public List<Reservation> all() {
        return reservations;
    }

    /** The job's reservation, or null. */
    public Reservation of(String jobId) {
        for (Reservation r : reservations) {
            if (r.jobId().equals(jobId)) {
                return r;
            }
        }
        return null;
    }

    /** Makes a reservation: its nodes leave the open set. */
    public void add(Reservation r) {
        reservations.add(r);
        for (String id : r.nodeIds()) {
            Node n = nodes.get(id);
            n.reservedFor(r.jobId());
            open.remove(n);
        }
    }

    /** The same reservation (same nodes) with a new due time, in its place. */
    public void redue(Reservation r, long dueAtMillis) {
        reservations.set(reservations.indexOf(r), new Reservation(r.jobId(), r.cluster(), r.nodeIds(), dueAtMillis));
    }

    /** Ends a reservation: its nodes are open again if they may take work. */
    public void drop(Reservation r) {
        reservations.remove(r);
        for (String id : r.nodeIds()) {
            Node n = nodes.get(id);
            if (r.jobId().equals(n.reservedFor())) {
                n.reservedFor(null);
                if (n.available()) {
                    open.add(n);
                }
            }
        }
    }

    /** The node drains or is lost: the reservation holding it ends. */
    public void dropHolding(Node n) {
        if (n.reservedFor() != null) {
            Reservation r = of(n.reservedFor());
            if (r != null) {
                drop(r);
            } else {
                n.reservedFor(null);
            }
        }
    }

    /** The reservation's nodes with at least {@code gpus} GPUs free, in its order, added to {@code out}; how many. */
    public int nodesWithFree(Reservation r, int gpus, List<Node> out) {
        int found = 0;
        for (String id : r.nodeIds()) {
            Node n = nodes.get(id);
            if (n.freeGpus() >= gpus) {
                found++;
                if (out != null) {
                    out.add(n);
                }
            }
        }
        return found;
    }

    /** The most free GPUs on one of the reservation's nodes. */
    public int maxFree(Reservation r) {
        int free = 0;
        for (String id : r.nodeIds()) {
            free = Math.max(free, nodes.get(id).freeGpus());
        }
        return free;
    }

    public Node node(String id) {
        return nodes.get(id);
    }
}
