package dev.allot.budget.hours;

import dev.allot.core.metrics.OwedHours;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An account's hourly series over a period with entitlement and owed hours: entitled = fraction of
 * the cluster x capacity x the seconds of the hour since the account was created (today's tree and
 * capacity, as the accounting-service values past hours), owed = min(entitled, demanded) hour by hour and delivered = charged, by scheduler-core's
 * {@link OwedHours}, the definition the simulator and the accounting-service use.
 */
public final class OwedLedger {

    private OwedLedger() {
    }

    /**
     * GPU-hours; entitledPerHour is null when the account or the cluster's capacity is unknown. Hours
     * before the account was created ({@code createdAtMillis}) are owed nothing, the part of the hour it
     * was created in after it.
     */
    public static Map<String, Object> render(String cluster, String account, HourlyLedger.Hour[] hours,
                                             Double entitledGpuSecondsPerHour, long createdAtMillis, boolean withHours) {
        int n = hours.length;
        double[] entitled = new double[n];
        double[] demanded = new double[n];
        double[] delivered = new double[n];
        for (int i = 0; i < n; i++) {
            // the core's rule for the owed part of a window, applied to this one hour
            double owedSeconds = dev.allot.core.usage.WindowUsage.owedSeconds(createdAtMillis, HourlyLedger.HOUR,
                    hours[i].start() + HourlyLedger.HOUR);
            entitled[i] = entitledGpuSecondsPerHour == null ? 0
                    : entitledGpuSecondsPerHour * owedSeconds * 1000 / HourlyLedger.HOUR;
            demanded[i] = hours[i].demanded();
            delivered[i] = hours[i].charged();
        }
        double[] owed = OwedHours.owed(entitled, demanded);
        OwedHours.Team team = OwedHours.team(account, entitled, demanded, delivered);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("account", account);
        body.put("cluster", cluster);
        body.put("from", n == 0 ? null : java.time.Instant.ofEpochMilli(hours[0].start()).toString());
        body.put("to", n == 0 ? null : java.time.Instant.ofEpochMilli(hours[n - 1].start() + HourlyLedger.HOUR).toString());
        body.put("entitlementKnown", entitledGpuSecondsPerHour != null);
        body.put("entitledGpuHours", team.entitledGpuHours());
        body.put("demandedGpuHours", team.demandGpuHours());
        body.put("owedGpuHours", team.owedGpuHours());
        body.put("deliveredGpuHours", team.deliveredGpuHours());
        body.put("unallocatedGpuHours", sum(hours) / 3600);
        body.put("deliveredOverOwed", team.owedAnything() ? team.ratio() : null);
        if (withHours) {
            List<Map<String, Object>> lines = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("hour", java.time.Instant.ofEpochMilli(hours[i].start()).toString());
                line.put("chargedGpuHours", hours[i].charged() / 3600);
                line.put("unallocatedGpuHours", hours[i].unallocated() / 3600);
                line.put("entitledGpuHours", entitledGpuSecondsPerHour == null ? null : entitled[i] / 3600);
                line.put("demandedGpuHours", demanded[i] / 3600);
                line.put("owedGpuHours", owed[i] / 3600);
                lines.add(line);
            }
            body.put("hours", lines);
        }
        return body;
    }

    private static double sum(HourlyLedger.Hour[] hours) {
        double s = 0;
        for (HourlyLedger.Hour h : hours) {
            s += h.unallocated();
        }
        return s;
    }
}
