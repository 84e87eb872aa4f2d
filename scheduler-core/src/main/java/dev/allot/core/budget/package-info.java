/** The budget tree (shares, fractions) and the entitlement history per cluster. */
package dev.allot.core.budget;
