/** Replays traces through scheduler-core on a virtual clock. */
package dev.allot.simulator;
