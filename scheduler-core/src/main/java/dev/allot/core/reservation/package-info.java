/**
 * Reservations: nodes held for a blocked top-ranked job while they drain of protected work. The
 * {@link dev.allot.core.reservation.Reservation} record (public, {@code Scheduler.reservations}),
 * the cluster's {@link dev.allot.core.reservation.ReservationBook}, the pass's rules
 * ({@link dev.allot.core.reservation.BlockedJobReserver}) and the planner of due times
 * ({@link dev.allot.core.reservation.ReservationPlanner}). Book and reserver are internal.
 */
package dev.allot.core.reservation;
