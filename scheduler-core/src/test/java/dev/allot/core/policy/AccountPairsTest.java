package dev.allot.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.budget.BudgetTree;
import dev.allot.core.explain.AccountUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link BudgetPolicy}'s answers by account ({@link AccountPairs}) must agree with its answer with
 * jobs on every pair: the core takes either, and shares victim searches between preemptors by the
 * subtrees. Seeded random trees (up to four levels), ratios and allocated GPUs; accounts outside
 * the tree on both sides.
 */
class AccountPairsTest {

    @TestFactory
    Stream<DynamicTest> answersByAccountAgreeWithTheAnswerWithJobs() {
        return LongStream.rangeClosed(1, 60).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            Random r = new Random(seed);
            BudgetTree tree = new BudgetTree();
            List<String> accounts = new ArrayList<>();
            grow(tree, r, null, "a", 0, accounts);
            accounts.add("gone"); // an account that has left the tree (or never was in it)
            HashMap<String, Double> ratios = new HashMap<>();
            HashMap<String, Integer> allocated = new HashMap<>();
            for (String a : accounts) {
                // ties and a few equal ratios on purpose: the margin's edge
                ratios.put(a, r.nextInt(4) == 0 ? 0.5 : r.nextInt(20) / 10.0);
                allocated.put(a, r.nextInt(64));
            }
            BudgetPolicy policy = new BudgetPolicy(0.2, r.nextBoolean() ? 0 : 0.3, r.nextBoolean() ? 1 : 0);
            PolicyContext ctx = context(tree, ratios, allocated);
            int compared = 0;
            int allowed = 0;
            for (String p : accounts) {
                AccountPairs pairs = policy.accountPairs(ctx);
                Set<String> bySubtrees = new HashSet<>();
                for (String s : pairs.allowedSubtrees(p)) {
                    for (String v : accounts) {
                        if (tree.path(v).contains(s)) {
                            assertThat(bySubtrees.add(v)).as("%s listed under two subtrees", v).isTrue();
                        }
                    }
                }
                for (String v : accounts) {
                    if (v.equals(p)) {
                        continue; // the core never asks for its own account
                    }
                    boolean withJobs = policy.allowsDisplacing(job(p), job(v), ctx);
                    assertThat(policy.mayDisplace(job(p), job(v), ctx).allowed()).isEqualTo(withJobs);
                    assertThat(pairs.allows(p, v)).as("%s displacing %s", p, v).isEqualTo(withJobs);
                    if (tree.exists(v)) {
                        assertThat(bySubtrees.contains(v)).as("%s under a subtree of %s", v, p).isEqualTo(withJobs);
                    }
                    compared++;
                    allowed += withJobs ? 1 : 0;
                }
            }
            // a world where the rule never or always allows would prove nothing
            assertThat(allowed).isPositive().isLessThan(compared);
        }));
    }

    private static void grow(BudgetTree tree, Random r, String parent, String name, int depth, List<String> out) {
        tree.define(name, parent, 1 + r.nextInt(4));
        out.add(name);
        int children = depth >= 3 ? 0 : r.nextInt(depth == 0 ? 5 : 4);
        for (int c = 0; c < children; c++) {
            grow(tree, r, name, name + c, depth + 1, out);
        }
    }

    /** A running allocated job of the account (the rule reads only the account). */
    private static JobView job(String account) {
        JobRequest request = JobRequest.of(account + "-job", account, "c1", 1, 1, 0, true, 0);
        return new JobView() {
            @Override
            public JobRequest request() {
                return request;
            }

            @Override
            public ChargeMode chargeMode() {
                return ChargeMode.ALLOCATED;
            }

            @Override
            public JobState state() {
                return JobState.RUNNING;
            }

            @Override
            public long queuedSinceMillis() {
                return 0;
            }

            @Override
            public long placedAtMillis() {
                return 0;
            }

            @Override
            public long protectedUntilMillis() {
                return 0;
            }

            @Override
            public long lastCheckpointMillis() {
                return 0;
            }

            @Override
            public List<ReplicaPlacement> placement() {
                return List.of();
            }

            @Override
            public int requeues() {
                return 0;
            }
        };
    }

    private static PolicyContext context(BudgetTree tree, HashMap<String, Double> ratios, HashMap<String, Integer> allocated) {
        return new PolicyContext() {
            @Override
            public long nowMillis() {
                return 0;
            }

            @Override
            public String cluster() {
                return "c1";
            }

            @Override
            public SchedulerConfig config() {
                return SchedulerConfig.defaults();
            }

            @Override
            public BudgetView budgets() {
                return tree;
            }

            @Override
            public AccountUsage usage(String account) {
                return new AccountUsage(account, "c1", 0, 0, 0, ratios.getOrDefault(account, Double.POSITIVE_INFINITY), 0);
            }

            @Override
            public int runningGpus(String account) {
                return allocated.getOrDefault(account, 0);
            }

            @Override
            public int runningGpusUnder(String account) {
                int sum = 0;
                for (var e : allocated.entrySet()) {
                    sum += tree.path(e.getKey()).contains(account) ? e.getValue() : 0;
                }
                return sum;
            }

            @Override
            public int capacityGpus() {
                return 256;
            }
        };
    }
}
