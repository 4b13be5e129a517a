package io.cronoq.gateway;

import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Refuses, before anything is written, a gang that the configured credentials say could never run:
 * with credentials configured every worker registers under one (worker or admin role, allowed in the
 * pool, allowed each label it claims, under an id its globs allow), so a {@code spread} gang needs as
 * many distinct workers as it has members among those the credentials could ever register with what
 * the members require, and a {@code sameLabel} key must be one some credential may give its workers.
 * An open gateway refuses nothing; an admin credential, or a worker credential whose ids are unbounded
 * (none given, or a glob with {@code *}), could register any number of workers with any label it may claim.
 */
final class GangFeasibility {

    private GangFeasibility() {}

    /** Throws a 400 naming {@code placement} or {@code sameLabel} when the gang could never be placed; else returns. */
    static void check(GangSubmitted gang, Credentials credentials) {
        if (credentials.isEmpty()) {
            return;
        }
        List<Credential> registering = new ArrayList<>();
        for (Credential c : credentials.all()) {
            if ((c.role() == Role.WORKER || c.role() == Role.ADMIN) && c.allowsPool(gang.getPool())) {
                registering.add(c);
            }
        }
        if (gang.getSameLabel() != null) {
            checkSameLabel(gang, registering);
        }
        if (gang.getPlacement() == GangPlacement.SPREAD) {
            checkSpread(gang, registering);
        }
    }

    private static void checkSameLabel(GangSubmitted gang, List<Credential> registering) {
        String key = gang.getSameLabel();
        TreeSet<String> keys = new TreeSet<>();
        for (Credential c : registering) {
            if (c.role() == Role.ADMIN) {
                return; // an admin's workers may carry any label
            }
            for (String label : c.labels()) {
                keys.add(label.substring(0, Math.max(0, label.indexOf('='))));
            }
        }
        if (!keys.contains(key)) {
            throw ApiException.invalid("sameLabel", "no credential of pool " + gang.getPool() + " may give its workers a "
                    + "label " + key + ", so no worker could ever carry one value of it; "
                    + (keys.isEmpty() ? "drop sameLabel" : "name a key they may carry (" + String.join(", ", keys)
                    + ") or drop sameLabel"));
        }
    }

    private static void checkSpread(GangSubmitted gang, List<Credential> registering) {
        TreeSet<String> ids = new TreeSet<>();
        for (TaskSubmitted member : gang.getMembers()) {
            for (Credential c : registering) {
                if (!mayCarry(c, member.getLabels())) {
                    continue;
                }
                if (c.role() == Role.ADMIN || c.workerIds() == null || c.workerIds().stream().anyMatch(g -> g.contains("*"))) {
                    return; // it could register any number of such workers
                }
                ids.addAll(c.workerIds());
            }
        }
        int size = gang.getMembers().size();
        if (ids.size() < size) {
            throw ApiException.invalid("placement", "spread puts each of the " + size + " members on its own worker, but "
                    + "the credentials of pool " + gang.getPool() + " let at most " + ids.size()
                    + (ids.size() == 1 ? " worker" : " workers") + " register with what the members require"
                    + (ids.isEmpty() ? "" : " (" + String.join(", ", ids) + ")")
                    + ": lower the size, use placement any or pack, or allow more worker ids");
        }
    }

    /** Whether a worker registered under {@code c} could carry every label {@code required} names. */
    private static boolean mayCarry(Credential c, Map<String, String> required) {
        for (Map.Entry<String, String> label : required.entrySet()) {
            if (!c.allowsLabel(label.getKey(), label.getValue())) {
                return false;
            }
        }
        return true;
    }
}
