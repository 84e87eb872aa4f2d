package dev.allot.core.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Owed hours: what a budget was owed is its entitlement capped, hour by hour, at its demand (a
 * team that asks for less than its share is owed only what it asks for). Delivered is what it
 * held. The period's ratio is delivered / owed over the whole period, capped at 1 (a team that
 * received more than it was owed, using others' idle share, counts as fully served); a team owed
 * nothing is not counted.
 */
public final class OwedHours {
    /** The threshold counted by {@link Summary#teamsAtLeast95()}. */
    public static final double WELL_SERVED = 0.95;

    private OwedHours() {
    }

    /** Per bucket: min(entitlement, demand). Arrays must have the same length. */
    public static double[] owed(double[] entitlement, double[] demand) {
        if (entitlement.length != demand.length) {
            throw new IllegalArgumentException("series lengths differ");
        }
        double[] owed = new double[entitlement.length];
        for (int i = 0; i < owed.length; i++) {
            owed[i] = Math.max(0, Math.min(entitlement[i], demand[i]));
        }
        return owed;
    }

    /**
     * One team's figures over the period, all series in GPU-seconds per bucket.
     *
     * @param entitlement entitled GPU-seconds per bucket (fraction x capacity x bucket length)
     * @param demand GPU-seconds the team's outstanding jobs (waiting or running) asked for per bucket
     * @param delivered GPU-seconds the team's jobs held per bucket (charged or not)
     */
    public static Team team(String team, double[] entitlement, double[] demand, double[] delivered) {
        double[] owed = owed(entitlement, demand);
        if (delivered.length != owed.length) {
            throw new IllegalArgumentException("series lengths differ");
        }
        double owedSum = 0;
        double deliveredSum = 0;
        double entitledSum = 0;
        double demandSum = 0;
        for (int i = 0; i < owed.length; i++) {
            owedSum += owed[i];
            deliveredSum += delivered[i];
            entitledSum += entitlement[i];
            demandSum += demand[i];
        }
        return new Team(team, entitledSum / 3600.0, demandSum / 3600.0, owedSum / 3600.0, deliveredSum / 3600.0);
    }

    /**
     * @param owedGpuHours sum over the period of min(entitlement, demand)
     * @param deliveredGpuHours GPU-hours held
     */
    public record Team(String team, double entitledGpuHours, double demandGpuHours, double owedGpuHours,
            double deliveredGpuHours) {
        /** True when the team was owed something (else it is left out of the summary). */
        public boolean owedAnything() {
            return owedGpuHours > 1e-9;
        }

        /** delivered / owed capped at 1; 1 when owed nothing. */
        public double ratio() {
            if (!owedAnything()) {
                return 1.0;
            }
            return Math.min(1.0, deliveredGpuHours / owedGpuHours);
        }
    }

    /** Mean and worst ratio over the teams that were owed something, and how many reach 95%. */
    public record Summary(double mean, double min, String worstTeam, int teamsAtLeast95, int teamsOwed,
            List<Team> teams) {
        public Summary {
            teams = List.copyOf(teams);
        }
    }

    public static Summary summarize(List<Team> teams) {
        List<Team> sorted = new ArrayList<>(teams);
        sorted.sort(Comparator.comparing(Team::team));
        double sum = 0;
        double min = 1.0;
        String worst = null;
        int counted = 0;
        int well = 0;
        for (Team t : sorted) {
            if (!t.owedAnything()) {
                continue;
            }
            double r = t.ratio();
            counted++;
            sum += r;
            if (worst == null || r < min) {
                min = r;
                worst = t.team();
            }
            if (r >= WELL_SERVED - 1e-12) {
                well++;
            }
        }
        double mean = counted == 0 ? 1.0 : sum / counted;
        return new Summary(mean, counted == 0 ? 1.0 : min, worst, well, counted, sorted);
    }
}
