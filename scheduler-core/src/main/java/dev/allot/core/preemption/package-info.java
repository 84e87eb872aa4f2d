/**
 * Preemption: the victim order ({@link dev.allot.core.preemption.VictimOrder}, public), the search for
 * the cheapest victims ({@link dev.allot.core.preemption.VictimSearch} over the
 * {@link dev.allot.core.preemption.PreemptibleIndex} and {@link dev.allot.core.preemption.NodeReach}),
 * and the step that displaces them ({@link dev.allot.core.preemption.Preemptor}). All but
 * {@code VictimOrder} is internal.
 */
package dev.allot.core.preemption;
