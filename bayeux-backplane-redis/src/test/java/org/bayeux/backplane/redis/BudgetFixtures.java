package org.bayeux.backplane.redis;

/** How the budget and history tests build their backplane. */
final class BudgetFixtures {
    private BudgetFixtures() {
    }

    static RedisBackplane backplane(RedisBackplaneConfig.Builder config) {
        return new RedisBackplane(config.build());
    }
}
