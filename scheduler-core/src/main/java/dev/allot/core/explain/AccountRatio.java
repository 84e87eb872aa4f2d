package dev.allot.core.explain;

/**
 * An account's standing on a cluster over the lookback window.
 *
 * @param chargedGpuSeconds charged (allocated) GPU-seconds in the window, rolled up over the subtree
 * @param entitledGpuSeconds entitled GPU-seconds in the window (fraction x capacity, integrated)
 * @param ratio charged / entitled; 0 when nothing is charged; +Infinity when charged without entitlement
 */
public record AccountRatio(String account, double ratio, double chargedGpuSeconds, double entitledGpuSeconds) {
    @Override
    public String toString() {
        return account + " (ratio " + ReasonFormat.ratio(ratio) + ")";
    }
}
