/** Hierarchical fair-share ordering of accounts (Fair Tree). */
package dev.allot.core.ordering;
