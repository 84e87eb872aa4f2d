/**
 * Cluster and budget metrics, defined once and shared by the simulator and (later) the
 * accounting-service: occupancy, owed hours (entitlement capped hour by hour at demand) against
 * delivered, unallocated share, waits per job class, preemption losses and fragmentation.
 *
 * <p>Everything here is a pure function or a plain accumulator over seconds: no clock, no
 * framework, no I/O. Times are seconds from the start of the measured period.
 */
package dev.allot.core.metrics;
