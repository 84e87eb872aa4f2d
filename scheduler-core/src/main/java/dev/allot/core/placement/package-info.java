/** Gang placement: free-GPU index per node, best fit that keeps whole nodes free. */
package dev.allot.core.placement;
