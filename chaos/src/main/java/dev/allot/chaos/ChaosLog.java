package dev.allot.chaos;

import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.UsageReported;
import java.time.Instant;
import java.util.List;

/**
 * What the checker reads: the decoded records of the catalogue topics it judges, each list in log order (per
 * partition; a job's events share one partition, keyed by job id), and the time the log was read up to.
 *
 * @param submissions  {@code JobSubmitted} of {@code job-requests}
 * @param jobEvents    {@code job-events}: the scheduler's decisions and the agents' reports
 * @param usage        {@code usage}: the agents' {@code UsageReported}
 * @param budgetUsage  {@code budget-usage}: the accounting-service's published sums (every update, not only the latest)
 * @param deadLetters  {@code dead-letters}
 * @param undecodable  records of those topics the checker could not decode (not the services' concern: reported)
 * @param readAt       when the log was read: holds still open then end there
 */
public record ChaosLog(List<JobSubmitted> submissions, List<JobEvent> jobEvents, List<UsageReported> usage,
                       List<BudgetUsage> budgetUsage, List<DeadLetter> deadLetters, long undecodable, Instant readAt) {

    public ChaosLog {
        submissions = List.copyOf(submissions);
        jobEvents = List.copyOf(jobEvents);
        usage = List.copyOf(usage);
        budgetUsage = List.copyOf(budgetUsage);
        deadLetters = List.copyOf(deadLetters);
    }
}
