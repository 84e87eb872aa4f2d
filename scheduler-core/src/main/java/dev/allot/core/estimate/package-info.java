/** Expected start times: a forward run of a copy of the core on a virtual clock. */
package dev.allot.core.estimate;
