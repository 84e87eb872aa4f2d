package dev.allot.budget.jobs;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * The event ids one job has seen, so that an event read twice is applied once. Ids in UUID form (every producer's)
 * are kept as two longs each, in a small array scanned in full (a job has tens of events, not thousands); any other
 * id as a string. A string and a set entry per id held about 90 MB for 100,000 jobs of history.
 */
final class SeenEventIds {

    private long[] uuids = new long[16];
    private int count;
    private Set<String> others;

    /** True when the id is new (and is now seen). */
    boolean add(String id) {
        UUID uuid = asUuid(id);
        if (uuid == null) {
            if (others == null) {
                others = new HashSet<>();
            }
            return others.add(id);
        }
        long high = uuid.getMostSignificantBits();
        long low = uuid.getLeastSignificantBits();
        for (int i = 0; i < count; i += 2) {
            if (uuids[i] == high && uuids[i + 1] == low) {
                return false;
            }
        }
        if (count == uuids.length) {
            uuids = Arrays.copyOf(uuids, uuids.length * 2);
        }
        uuids[count++] = high;
        uuids[count++] = low;
        return true;
    }

    /** The UUID the id spells in canonical form (so that one id has one form), or null. */
    private static UUID asUuid(String id) {
        if (id.length() != 36 || id.charAt(8) != '-' || id.charAt(13) != '-' || id.charAt(18) != '-'
                || id.charAt(23) != '-') {
            return null;
        }
        try {
            UUID uuid = UUID.fromString(id);
            return uuid.toString().equals(id) ? uuid : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
