/**
 * The pass order: Fair Tree ranking of accounts ({@link dev.allot.core.ordering.FairTree}), the
 * order built from it ({@link dev.allot.core.ordering.PassOrderBuilder},
 * {@link dev.allot.core.ordering.PassOrder}) and the debug lane ({@link dev.allot.core.ordering.DebugLane}
 * bounds, {@link dev.allot.core.ordering.LaneReserve} held nodes). Public API: {@code FairTree},
 * {@code DebugLane}; the rest is internal.
 */
package dev.allot.core.ordering;
