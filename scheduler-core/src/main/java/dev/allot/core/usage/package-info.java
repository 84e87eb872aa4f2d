/**
 * The usage ledger (charged and unallocated GPU-seconds per account over a sliding window) and
 * the window usage rolled up over the budget tree ({@link dev.allot.core.usage.WindowUsage}).
 */
package dev.allot.core.usage;
