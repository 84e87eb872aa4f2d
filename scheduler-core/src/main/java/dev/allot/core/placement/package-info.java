/**
 * Gang placement: the free-GPU index of open nodes ({@link dev.allot.core.placement.FreeIndex},
 * best fit), where a gang fits and which nodes may take a replica, backfill included
 * ({@link dev.allot.core.placement.GangFit}). Internal.
 */
package dev.allot.core.placement;
