package org.bayeux.backplane.redis;

import org.bayeux.api.server.HistoryAccess;
import org.bayeux.api.server.HistoryAuthorizer;

/** How the budget and history tests build their backplane. */
final class BudgetFixtures {
    private BudgetFixtures() {
    }

    /** @return a backplane with the default history authorizer (historyLookBack) */
    static RedisBackplane backplane(RedisBackplaneConfig.Builder config) {
        return new RedisBackplane(config.build());
    }

    /** @return a backplane whose sessions may read every history they recover from (to measure the budgets alone) */
    static RedisBackplane readingAll(RedisBackplaneConfig.Builder config) {
        return new RedisBackplane(config.build(), HistoryAuthorizer.always(HistoryAccess.all()));
    }
}
