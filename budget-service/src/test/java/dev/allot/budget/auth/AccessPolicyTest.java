package dev.allot.budget.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.BudgetPath;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The policy on a hand-built tree: inheritance down the path, groups, and what each refusal names. */
class AccessPolicyTest {

    private static final BudgetTree TREE = BudgetTree.empty()
            .define(account("lab", List.of("group:leads"), List.of()))
            .define(account("lab/vision", List.of("vera"), List.of("group:vision")))
            .define(account("lab/vision/team-a", List.of(), List.of("ann")))
            .define(account("lab/nlp", List.of("nick"), List.of()));

    private static Account account(String path, List<String> owners, List<String> members) {
        return new Account(path, BudgetPath.parentOf(path), 1, Instant.EPOCH, "test", owners, members);
    }

    private static Caller user(String name, String... groups) {
        return new Caller(name, Set.of(groups), false, false);
    }

    @Test
    void givenOwnersHigherUp_whenTheyChangeAccountsBeneath_thenAllowed_butNeverTheirOwnNorASiblings() {
        assertThat(AccessPolicy.mayChange(user("lee", "leads"), TREE, "lab/vision/team-a")).isEmpty();
        assertThat(AccessPolicy.mayChange(user("lee", "leads"), TREE, "lab/nlp")).isEmpty();
        assertThat(AccessPolicy.mayChange(user("vera"), TREE, "lab/vision/team-a")).isEmpty();
        assertThat(AccessPolicy.mayChange(user("vera"), TREE, "lab/vision/new")).isEmpty();

        Optional<Violation> own = AccessPolicy.mayChange(user("vera"), TREE, "lab/vision");
        assertThat(own).get().extracting(Violation::status, Violation::field).containsExactly(403, "path");
        assertThat(own.get().message()).contains("not its own share");
        assertThat(AccessPolicy.mayChange(user("vera"), TREE, "lab/nlp")).isPresent();
        assertThat(AccessPolicy.mayChange(user("lee", "leads"), TREE, "lab")).get()
                .extracting(Violation::message).asString().contains("only admins");
        assertThat(AccessPolicy.mayChange(new Caller("root", Set.of(), true, false), TREE, "lab")).isEmpty();
    }

    @Test
    void givenMembersOfALeafOrAbove_whenTheySubmit_thenAllowed_andOwnersAreNotMembers() {
        assertThat(AccessPolicy.maySubmit(user("ann"), TREE, "lab/vision/team-a")).isEmpty();
        assertThat(AccessPolicy.maySubmit(user("bo", "vision"), TREE, "lab/vision/team-a")).isEmpty();
        assertThat(AccessPolicy.maySubmit(user("vera"), TREE, "lab/vision/team-a")).get()
                .extracting(Violation::field).isEqualTo("budget");
        assertThat(AccessPolicy.maySubmit(user("nick", "nlp"), TREE, "lab/vision/team-a")).isPresent();
        // a group entry names a group, never a user of that name
        assertThat(AccessPolicy.maySubmit(user("vision"), TREE, "lab/vision/team-a")).isPresent();
    }

    @Test
    void givenAJobsOutput_whenSomeoneReadsIt_thenItsSubmitterOwnersAboveOperatorsAndAdminsMay_andOtherMembersNot() {
        String budget = "lab/vision/team-a";
        assertThat(AccessPolicy.mayReadOutput(user("ann"), TREE, budget, "ann")).isEmpty();
        assertThat(AccessPolicy.mayReadOutput(user("vera"), TREE, budget, "ann")).isEmpty();
        assertThat(AccessPolicy.mayReadOutput(user("lee", "leads"), TREE, budget, "ann")).isEmpty();
        assertThat(AccessPolicy.mayReadOutput(new Caller("ops", Set.of(), false, true), TREE, budget, "ann")).isEmpty();
        assertThat(AccessPolicy.mayReadOutput(new Caller("root", Set.of(), true, false), TREE, budget, "ann")).isEmpty();
        // a fellow member of the team, and an owner of a sibling subtree, do not read another's output
        assertThat(AccessPolicy.mayReadOutput(user("bo", "vision"), TREE, budget, "ann")).get()
                .extracting(Violation::status, Violation::field).containsExactly(403, "id");
        assertThat(AccessPolicy.mayReadOutput(user("nick"), TREE, budget, "ann")).isPresent();
    }

    @Test
    void givenAJob_whenSomeoneCancelsIt_thenItsSubmitterAndOwnersAboveMay_andOthersNot() {
        assertThat(AccessPolicy.mayCancel(user("ann"), TREE, "lab/vision/team-a", "ann")).isEmpty();
        assertThat(AccessPolicy.mayCancel(user("vera"), TREE, "lab/vision/team-a", "ann")).isEmpty();
        assertThat(AccessPolicy.mayCancel(user("lee", "leads"), TREE, "lab/vision/team-a", "ann")).isEmpty();
        assertThat(AccessPolicy.mayCancel(user("bo", "vision"), TREE, "lab/vision/team-a", "ann")).get()
                .extracting(Violation::field).isEqualTo("id");
        assertThat(AccessPolicy.mayCancel(user("nick"), TREE, "lab/vision/team-a", "ann")).isPresent();
    }

    @Test
    void givenOperators_whenTheyDrain_thenAllowed_andOthersNot() {
        assertThat(AccessPolicy.mayDrain(new Caller("op", Set.of(), false, true))).isEmpty();
        assertThat(AccessPolicy.mayDrain(new Caller("root", Set.of(), true, false))).isEmpty();
        assertThat(AccessPolicy.mayDrain(user("vera"))).get().extracting(Violation::status, Violation::field)
                .containsExactly(403, "node");
    }

    @Test
    void givenAClaimedName_whenItIsAnotherPrincipal_then400_andOwnNameOrNoneIsFine() {
        assertThat(AccessPolicy.claimedName(user("ann"), "submitter", "bob")).get()
                .extracting(Violation::status, Violation::field).containsExactly(400, "submitter");
        assertThat(AccessPolicy.claimedName(user("ann"), "submitter", "ann")).isEmpty();
        assertThat(AccessPolicy.claimedName(user("ann"), "submitter", null)).isEmpty();
    }
}
