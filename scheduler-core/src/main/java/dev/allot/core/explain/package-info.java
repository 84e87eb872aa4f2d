/**
 * Explanations: the data behind every decision in a form a person reads. Built from the values
 * the decisions were taken on, never recomputed separately.
 */
package dev.allot.core.explain;
