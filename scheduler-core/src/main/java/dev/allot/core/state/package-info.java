/**
 * Internal: the core's state and the only code that changes it. {@link dev.allot.core.state.ClusterState}
 * places, releases, requeues and finishes jobs and keeps every index over them in step; a
 * {@link dev.allot.core.state.Job} keeps its facts. Public only so the pass's phases in sibling
 * packages can read it; not for use outside the core (callers see {@code JobView} and {@code NodeView}).
 */
package dev.allot.core.state;
