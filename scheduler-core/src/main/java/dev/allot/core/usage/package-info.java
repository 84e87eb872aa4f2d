/** The usage ledger: charged and unallocated GPU-seconds per account over a sliding window. */
package dev.allot.core.usage;
