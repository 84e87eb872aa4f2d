package dev.allot.core.policy;

/**
 * A policy's answer to "may this job displace that one".
 *
 * @param victimRatio the value the victim was judged on (NaN if none)
 * @param preemptorRatio the value the preemptor was judged on (NaN if none)
 */
public record PreemptionVerdict(boolean allowed, double victimRatio, double preemptorRatio, String reason) {
    public static PreemptionVerdict no(String reason) {
        return new PreemptionVerdict(false, Double.NaN, Double.NaN, reason);
    }
}
