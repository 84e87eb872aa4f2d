/**
 * The one budget rule ({@link dev.allot.core.budget.Shares}: shares to fractions to entitlement), the
 * budget tree, and the entitlement history per cluster.
 */
package dev.allot.core.budget;
