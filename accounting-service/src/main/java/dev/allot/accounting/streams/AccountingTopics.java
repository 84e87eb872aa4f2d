package dev.allot.accounting.streams;

import dev.allot.schemas.catalogue.Topics;

/** Topic names the topology reads and writes; the catalogue's by default, fresh copies in tests. */
public record AccountingTopics(String usage, String budgets, String nodeStatus, String accountDemand,
                               String budgetUsage, String deadLetters) {

    public static AccountingTopics catalogue() {
        return new AccountingTopics(Topics.USAGE.name(), Topics.BUDGETS.name(), Topics.NODE_STATUS.name(),
                Topics.ACCOUNT_DEMAND.name(), Topics.BUDGET_USAGE.name(), Topics.DEAD_LETTERS.name());
    }
}
