/**
 * Explanations: the data behind every decision in a form a person reads, built from the values
 * the decisions were taken on, never recomputed separately. Public: the explanation records,
 * {@code Hold}, {@code AccountRatio}, {@code AccountUsage}, {@code ReasonFormat}. Internal:
 * {@link dev.allot.core.explain.ExplanationBook} (written by the pass) and
 * {@link dev.allot.core.explain.Explainer} (read-only answers).
 */
package dev.allot.core.explain;
