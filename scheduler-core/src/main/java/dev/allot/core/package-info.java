/** Allot's scheduling policy: a plain Java library driven by the scheduler-service and the simulator. */
package dev.allot.core;
