package dev.allot.chaos;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The verdict of a chaos run, read from the log alone. The targets: nothing lost, nothing stuck, no wrong
 * verdict, no GPU-second double-booked by the scheduler or physically shared by two processes, usage sums exact.
 * Dead letters are reported, not judged (a run may dead-letter on purpose). Recovery seconds are judged on a line of
 * their own (each component serving within {@link #RESTART_TARGET_SECONDS} of its restart) and not in
 * {@link #targetsMet()}: they measure the machine as much as the code.
 *
 * @param submitted        distinct {@code JobSubmitted} in {@code job-requests} (within the run)
 * @param acknowledged     submissions the API answered 202 to, as the driver recorded them (0 when not given)
 * @param accepted         jobs with a {@code JobAccepted}
 * @param lost             submitted (or acknowledged) jobs with no verdict on them at all: neither accepted nor rejected
 * @param stuck            accepted jobs with no final verdict (completed, failed, cancelled)
 * @param wrongVerdicts    jobs whose final verdict contradicts how their process ended, with why
 * @param doubleBooked     times the scheduler's own placements gave one GPU to two jobs at once
 * @param shared           times the agents ran two jobs' processes on one GPU at once (start to exit, as reported)
 * @param usageReported    GPU-seconds the agents reported ({@code UsageReported}) on the accounts judged
 * @param usageMismatch    |accounting's sums - the agents' sums|, per account and charge mode, summed
 * @param usageMismatches  the accounts that differ, with both figures
 * @param deadLetters      dead letters by consumer (within the run)
 * @param recoveries       the kills, as the driver timed them
 * @param undecodable      records the checker itself could not decode
 */
public record ChaosReport(int submitted, int acknowledged, int accepted, int rejected, int completed, int failed,
                          int cancelled, List<String> lost, List<String> stuck, List<String> wrongVerdicts,
                          List<GpuTime.Overlap> doubleBooked, List<GpuTime.Overlap> shared, double usageReported,
                          double usageMismatch, List<String> usageMismatches, Map<String, Integer> deadLetters,
                          List<Recovery> recoveries, long undecodable) {

    /** Every component serving again within this many seconds of its restart. */
    static final double RESTART_TARGET_SECONDS = 10;

    /** Below this many GPU-seconds two sums are equal (doubles summed in another order). */
    static final double EXACT = 1e-6;

    public double doubleBookedSeconds() {
        return doubleBooked.stream().mapToDouble(GpuTime.Overlap::seconds).sum();
    }

    public double sharedSeconds() {
        return shared.stream().mapToDouble(GpuTime.Overlap::seconds).sum();
    }

    public int deadLetterCount() {
        return deadLetters.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The kills after which the component served again later than {@link #RESTART_TARGET_SECONDS} after its restart. */
    public List<Recovery> slowRecoveries() {
        return recoveries.stream().filter(r -> r.startSeconds() > RESTART_TARGET_SECONDS).toList();
    }

    /** Whether the run met the targets (dead letters reported, recovery times judged apart: {@link #slowRecoveries}). */
    public boolean targetsMet() {
        return lost.isEmpty() && stuck.isEmpty() && wrongVerdicts.isEmpty() && doubleBooked.isEmpty()
                && shared.isEmpty() && usageMismatches.isEmpty();
    }

    public void print(PrintStream out) {
        out.printf(Locale.ROOT, "submissions: %d submitted (%d acknowledged by the API), %d accepted, %d rejected%n",
                submitted, acknowledged, accepted, rejected);
        out.printf(Locale.ROOT, "verdicts: %d completed, %d failed, %d cancelled%n", completed, failed, cancelled);
        out.printf(Locale.ROOT, "lost: %d%s%n", lost.size(), sample(lost));
        out.printf(Locale.ROOT, "stuck: %d%s%n", stuck.size(), sample(stuck));
        out.printf(Locale.ROOT, "wrong verdicts: %d%s%n", wrongVerdicts.size(), sample(wrongVerdicts));
        out.printf(Locale.ROOT, "GPU-seconds double-booked (scheduler placements): %.3f in %d overlaps%s%n",
                doubleBookedSeconds(), doubleBooked.size(), sample(doubleBooked.stream().map(Object::toString).toList()));
        out.printf(Locale.ROOT, "GPU-seconds physically shared (agents' start/exit): %.3f in %d overlaps%s%n",
                sharedSeconds(), shared.size(), sample(shared.stream().map(Object::toString).toList()));
        out.printf(Locale.ROOT, "usage: %.3f GPU-seconds reported by the agents; mismatch with accounting %.6f%s%n",
                usageReported, usageMismatch, sample(usageMismatches));
        out.printf(Locale.ROOT, "dead letters: %d %s%n", deadLetterCount(), deadLetters);
        for (Recovery r : recoveries) {
            out.printf(Locale.ROOT, "recovery %-20s %6.1f s from the kill (%5.1f s from its restart)%n",
                    r.component(), r.seconds(), r.startSeconds());
        }
        if (!recoveries.isEmpty()) {
            List<Recovery> slow = slowRecoveries();
            out.printf(Locale.ROOT, "recovery within %.0f s of each restart: %s%n", RESTART_TARGET_SECONDS,
                    slow.isEmpty() ? "met" : "MISSED (" + String.join(", ", slow.stream().map(r -> String.format(
                            Locale.ROOT, "%s %.1f s", r.component(), r.startSeconds())).toList()) + ")");
        }
        if (undecodable > 0) {
            out.printf(Locale.ROOT, "records the checker could not decode: %d%n", undecodable);
        }
        out.println(targetsMet() ? "targets met: 0 lost, 0 stuck, 0 wrong verdicts, 0 double-booked, 0 shared, sums exact"
                : "TARGETS MISSED");
    }

    private static String sample(List<String> items) {
        if (items.isEmpty()) {
            return "";
        }
        return " " + (items.size() <= 5 ? items : items.subList(0, 5) + " ...");
    }
}
