package io.cronoq.scheduler.policy;

import io.cronoq.events.LimitSet;
import io.cronoq.schemas.rules.LimitRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An admin's change of one limit of a pool ({@code LimitSet}) as decisions: journaled, stored, the
 * lines naming the limit looked at again, and what that frees placed at once. A lowered limit
 * revokes nothing: attempts beyond it run to their end, and no new one starts until the key is
 * below it. A removed rate limit makes the tasks naming it wait until it is defined again.
 */
final class LimitChanges {

    private final PoolModel m;
    private final Placement placement;

    LimitChanges(PoolModel model, Placement placement) {
        this.m = model;
        this.placement = placement;
    }

    List<Decision> set(LimitSet in) {
        List<Decision> out = new ArrayList<>(2);
        if (m.admission.refused("LimitSet", LimitRules.check(in), in.getPool(), null, null, out)) {
            return out;
        }
        out.add(Decision.journal(in, null));
        m.rememberPool();
        Instant at = in.getSetAt();
        m.limits.clock(at);
        m.limits.set(in);
        placement.settle(at, out);
        return out;
    }
}
