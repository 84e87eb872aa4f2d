/**
 * Internal: one scheduling pass over one cluster. {@link dev.allot.core.pass.ClusterPass} runs its
 * steps and walks the order, asking the phases (ordering, placement, preemption, reservation) in
 * turn; {@link dev.allot.core.pass.PassContext} is what the pass knows and the policy's view of it.
 * Public only for the phases in sibling packages; not for use outside the core.
 */
package dev.allot.core.pass;
