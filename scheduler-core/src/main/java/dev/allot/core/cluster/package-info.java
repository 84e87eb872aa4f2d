/** Nodes: GPU indices per job, drain, loss, fencing epochs. */
package dev.allot.core.cluster;
