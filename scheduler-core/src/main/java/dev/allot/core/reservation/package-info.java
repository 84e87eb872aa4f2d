/** Reservations: nodes held for a blocked top-ranked job while they drain of protected work. */
package dev.allot.core.reservation;
