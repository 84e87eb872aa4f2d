package dev.allot.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.PolicyContext;
import dev.allot.simulator.policy.FairshareDecayPolicy;
import dev.allot.simulator.policy.PriorityPolicy;
import dev.allot.simulator.policy.QuotaPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoliciesTest {

    /** org > {a: 3, b: 1}. */
    static final class Tree implements BudgetView {
        final Map<String, Double> shares = Map.of("org", 1.0, "a", 3.0, "b", 1.0);

        @Override
        public boolean exists(String account) {
            return shares.containsKey(account);
        }

        @Override
        public String parent(String account) {
            return account.equals("org") ? null : "org";
        }

        @Override
        public List<String> children(String account) {
            return account.equals("org") ? List.of("a", "b") : List.of();
        }

        @Override
        public List<String> roots() {
            return List.of("org");
        }

        @Override
        public double share(String account) {
            return shares.get(account);
        }

        @Override
        public double fraction(String account) {
            return switch (account) {
                case "a" -> 0.75;
                case "b" -> 0.25;
                default -> 1.0;
            };
        }

        @Override
        public List<String> path(String account) {
            return account.equals("org") ? List.of("org") : List.of("org", account);
        }
    }

    /** Whether the policy admits a job of {@code gpus} GPUs for team b while b runs {@code running} GPUs. */
    private static boolean admitsForB(dev.allot.core.policy.SchedulingPolicy policy, int running, int gpus) {
        Ctx ctx = new Ctx();
        ctx.running.put("b", running);
        return policy.admits(job("j", "b", gpus), ctx);
    }

    static final class Ctx implements PolicyContext {
        long now;
        final Map<String, Integer> running = new HashMap<>();

        @Override
        public long nowMillis() {
            return now;
        }

        @Override
        public String cluster() {
            return "sim";
        }

        @Override
        public SchedulerConfig config() {
            return SchedulerConfig.defaults();
        }

        @Override
        public BudgetView budgets() {
            return new Tree();
        }

        @Override
        public AccountUsage usage(String account) {
            return new AccountUsage(account, "sim", 0, 0, 0, 0, 0);
        }

        @Override
        public int runningGpus(String account) {
            return running.getOrDefault(account, 0);
        }

        @Override
        public int runningGpusUnder(String account) {
            return account.equals("org") ? running.values().stream().mapToInt(Integer::intValue).sum()
                    : runningGpus(account);
        }

        @Override
        public int capacityGpus() {
            return 32;
        }
    }

    static JobView job(String id, String account, int gpus) {
        JobRequest r = JobRequest.of(id, account, "sim", 1, gpus, 3600_000, true, 0);
        return new JobView() {
            @Override
            public JobRequest request() {
                return r;
            }

            @Override
            public ChargeMode chargeMode() {
                return ChargeMode.ALLOCATED;
            }

            @Override
            public JobState state() {
                return JobState.WAITING;
            }

            @Override
            public long queuedSinceMillis() {
                return 0;
            }

            @Override
            public long placedAtMillis() {
                return -1;
            }

            @Override
            public long protectedUntilMillis() {
                return -1;
            }

            @Override
            public long lastCheckpointMillis() {
                return -1;
            }

            @Override
            public List<ReplicaPlacement> placement() {
                return new ArrayList<>();
            }

            @Override
            public int requeues() {
                return 0;
            }
        };
    }

    @Test
    void priorityAdmitsUpToTheTeamLimitAndNeverPreempts() {
        PriorityPolicy p = PriorityPolicy.fromFractions(Map.of("a", 0.75, "b", 0.25), 32, 8, 2.0);
        assertThat(p.limits()).containsEntry("a", 48).containsEntry("b", 16);
        // b holds 12 of its 16: 4 more fit, 8 do not; holding nothing, b may start one job of any size
        assertThat(admitsForB(p, 12, 4)).isTrue();
        assertThat(admitsForB(p, 12, 8)).isFalse();
        assertThat(admitsForB(p, 0, 24)).as("a team holding nothing may start one job").isTrue();
        Ctx ctx = new Ctx();
        assertThat(p.mayPreempt(job("j", "a", 1), ctx)).isFalse();
        assertThat(p.reservesForBlockedJobs()).isFalse();
        assertThat(p.rankAccounts(ctx).rankOf("a")).isEqualTo(p.rankAccounts(ctx).rankOf("b"));
    }

    @Test
    void quotaIsAMonopolyOfTheTeamsFraction() {
        QuotaPolicy q = QuotaPolicy.fromFractions(Map.of("a", 0.75, "b", 0.25), 32);
        assertThat(q.quotas()).containsEntry("a", 24).containsEntry("b", 8);
        // b's quota is 8: holding 4, 4 more fit and 5 do not; a job over the quota fits only an idle team
        assertThat(admitsForB(q, 4, 4)).isTrue();
        assertThat(admitsForB(q, 4, 5)).isFalse();
        assertThat(admitsForB(q, 0, 16)).isTrue();
        assertThat(admitsForB(q, 1, 16)).isFalse();
    }

    @Test
    void fairshareDecayRanksByDecayedUsageOverFraction() {
        long day = SchedulerConfig.DAY;
        FairshareDecayPolicy f = new FairshareDecayPolicy(7 * day);
        Ctx ctx = new Ctx();
        ctx.now = 0;
        f.rankAccounts(ctx);
        // b (fraction 0.25) holds 8 GPUs for a day, a (0.75) holds 16: b used 8/0.25 = 32 per unit of
        // fraction, a 16/0.75 = 21: a ranks first
        ctx.running.put("a", 16);
        ctx.running.put("b", 8);
        f.rankAccounts(ctx);
        ctx.now = day;
        AccountRanking r = f.rankAccounts(ctx);
        assertThat(r.rankOf("a")).isLessThan(r.rankOf("b"));
        assertThat(f.decayedUsage("b") / f.decayedUsage("a")).isCloseTo(0.5, org.assertj.core.api.Assertions.within(1e-9));
        // one GPU-day decays by half in a half-life
        double before = f.decayedUsage("a");
        ctx.running.clear();
        f.rankAccounts(ctx);
        ctx.now = 8 * day;
        f.rankAccounts(ctx);
        assertThat(f.decayedUsage("a")).isCloseTo(before / 2, org.assertj.core.api.Assertions.within(before * 1e-9));
        assertThat(f.mayPreempt(job("j", "a", 1), ctx)).isFalse();
        assertThat(f.contractsProtect()).isFalse();
    }
}
