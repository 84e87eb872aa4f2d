package dev.allot.core.estimate;

import dev.allot.core.JobView;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.PolicyContext;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;
import java.util.Comparator;

/**
 * A policy exactly like another except that nothing is ever preempted: the Slurm-style baseline
 * of the estimate's accuracy (running jobs end at their limit, nobody is displaced).
 */
public record WithoutPreemption(SchedulingPolicy of) implements SchedulingPolicy {

    @Override
    public String name() {
        return of.name() + "-without-preemption";
    }

    @Override
    public AccountRanking rankAccounts(PolicyContext ctx) {
        return of.rankAccounts(ctx);
    }

    @Override
    public Comparator<JobView> withinAccount() {
        return of.withinAccount();
    }

    @Override
    public boolean admits(JobView job, PolicyContext ctx) {
        return of.admits(job, ctx);
    }

    @Override
    public boolean limitsAdmission() {
        return of.limitsAdmission();
    }

    @Override
    public boolean contractsProtect() {
        return of.contractsProtect();
    }

    @Override
    public boolean reservesForBlockedJobs() {
        return of.reservesForBlockedJobs();
    }

    @Override
    public boolean hasDebugLane() {
        return of.hasDebugLane();
    }

    @Override
    public boolean preempts() {
        return false;
    }

    @Override
    public boolean mayPreempt(JobView preemptor, PolicyContext ctx) {
        return false;
    }

    @Override
    public PreemptionVerdict mayDisplace(JobView preemptor, JobView victim, PolicyContext ctx) {
        return PreemptionVerdict.no("nothing is preempted in this estimate");
    }
}
