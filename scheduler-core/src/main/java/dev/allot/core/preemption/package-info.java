/** Preemption: choosing victims so an allocated gang fits. */
package dev.allot.core.preemption;
