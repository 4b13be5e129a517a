package io.cronoq.schemas.rules;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The rules of a gang submission, the same at every edge (client, gateway, scheduler): a valid gang
 * id and pool; 1 to {@link #MAX_SIZE} members, member {@code i} named {@code <gangId>-<i>}, of the
 * gang's pool, all of one tenant and priority, each a valid submission without a time of its own
 * (a fixed start, a not-before: a gang starts when all its members fit at once) and with no gang field of its own
 * (the scheduler sets it); a {@code sameLabel} that is a label name, and that no two members require
 * with different values; and no concurrency key whose declared max could not hold every member
 * naming it at once. Each refusal names the field and the fix.
 */
public final class GangRules {

    /** The most members a gang may have. */
    public static final int MAX_SIZE = 1_024;

    private GangRules() {}

    /** The task id of member {@code rank} of gang {@code gangId}. */
    public static String memberId(String gangId, int rank) {
        return gangId + "-" + rank;
    }

    /** Every rule of a gang submission; the first one broken, or empty. */
    public static Optional<Violation> check(GangSubmitted g) {
        Optional<Violation> v = Violation.first(Rules.pool(g.getPool()), gangId(g.getGangId()),
                Rules.text("submitter", g.getSubmitter(), Rules.MAX_SUBMITTER_LENGTH), sameLabel(g.getSameLabel()));
        if (v.isPresent()) {
            return v;
        }
        List<TaskSubmitted> members = g.getMembers();
        int size = members == null ? 0 : members.size();
        if (size == 0 || size > MAX_SIZE) {
            return Optional.of(new Violation("members", "a gang of " + size + " members; a gang has 1 to " + MAX_SIZE
                    + " members"));
        }
        TaskSubmitted first = members.get(0);
        String sameValue = null;
        for (int i = 0; i < size; i++) {
            TaskSubmitted m = members.get(i);
            String field = "members[" + i + "]";
            if (m == null) {
                return Optional.of(new Violation(field, field + " is missing"));
            }
            v = member(g, m, i, field, first);
            if (v.isPresent()) {
                return v;
            }
            if (g.getSameLabel() != null && m.getLabels().containsKey(g.getSameLabel())) {
                String value = m.getLabels().get(g.getSameLabel());
                if (sameValue != null && !sameValue.equals(value)) {
                    return Optional.of(new Violation("sameLabel", "members require " + g.getSameLabel() + "=" + sameValue
                            + " and " + g.getSameLabel() + "=" + value + ", so they can never share one value of "
                            + g.getSameLabel() + "; require one value or drop sameLabel"));
                }
                sameValue = value;
            }
        }
        return keysHoldEveryMember(members);
    }

    /**
     * A concurrency key the members name must allow all who name it to run at once: the gang starts whole, so members
     * naming a key whose declared max is below their number could never start.
     */
    private static Optional<Violation> keysHoldEveryMember(List<TaskSubmitted> members) {
        Map<String, int[]> keys = new LinkedHashMap<>(); // per key: members naming it, smallest declared max, its member
        for (int i = 0; i < members.size(); i++) {
            List<ConcurrencyKey> named = members.get(i).getConcurrency();
            for (int k = 0; k < named.size(); k++) {
                ConcurrencyKey key = named.get(k);
                int[] seen = keys.computeIfAbsent(key.getKey(), x -> new int[] {0, Integer.MAX_VALUE, -1, -1});
                seen[0]++;
                if (key.getMax() != null && key.getMax() < seen[1]) {
                    seen[1] = key.getMax();
                    seen[2] = i;
                    seen[3] = k;
                }
            }
        }
        for (Map.Entry<String, int[]> e : keys.entrySet()) {
            int[] seen = e.getValue();
            if (seen[0] > seen[1]) {
                return Optional.of(new Violation("members[" + seen[2] + "].concurrency[" + seen[3] + "].max",
                        seen[0] + " members name concurrency key " + e.getKey() + " and members[" + seen[2]
                                + "] allows at most " + seen[1] + " holders; a gang's members start together, so raise "
                                + "the max to at least " + seen[0] + " or name the key on fewer members"));
            }
        }
        return Optional.empty();
    }

    private static Optional<Violation> member(GangSubmitted g, TaskSubmitted m, int rank, String field,
                                              TaskSubmitted first) {
        String id = memberId(g.getGangId(), rank);
        if (!id.equals(m.getTaskId())) {
            return Optional.of(new Violation(field + ".taskId", field + ".taskId is '" + m.getTaskId()
                    + "'; member " + rank + " of gang " + g.getGangId() + " is named " + id));
        }
        if (!g.getPool().equals(m.getPool())) {
            return Optional.of(new Violation(field + ".pool", field + ".pool is '" + m.getPool()
                    + "'; every member runs in the gang's pool " + g.getPool()));
        }
        Optional<Violation> broken = Rules.checkSubmission(m);
        if (broken.isPresent()) {
            Violation b = broken.get();
            return Optional.of(new Violation(field + "." + b.field(), field + ": " + b.message()));
        }
        if (!Objects.equals(m.getTenant(), first.getTenant())) {
            return Optional.of(new Violation(field + ".tenant", field + ".tenant is " + m.getTenant()
                    + " and members[0].tenant is " + first.getTenant() + "; a gang runs for one tenant"));
        }
        if (m.getPriority() != first.getPriority()) {
            return Optional.of(new Violation(field + ".priority", field + ".priority is " + m.getPriority()
                    + " and members[0].priority is " + first.getPriority() + "; a gang has one priority"));
        }
        if (m.getStartAt() != null || m.getNotBefore() != null) {
            return Optional.of(new Violation(field + (m.getStartAt() != null ? ".startAt" : ".notBefore"),
                    field + " has a time of its own; a gang's members start when the gang is placed, so leave "
                            + "startAt and notBefore unset"));
        }
        if (!m.getAfter().isEmpty()) {
            return Optional.of(new Violation(field + ".after", field + " names parents; a gang's members do not wait "
                    + "for parents yet: submit the gang once its parents ended, or make it the child of a task that "
                    + "waits for them"));
        }
        if (m.getGang() != null) {
            return Optional.of(new Violation(field + ".gang", field + ".gang is set; leave it unset, the scheduler "
                    + "sets it on each member it accepts"));
        }
        return Optional.empty();
    }

    /** A gang id: a task id with room for {@code -<rank>}. */
    public static Optional<Violation> gangId(String gangId) {
        if (gangId == null || !Rules.isId(gangId) || gangId.length() > 249) {
            return Optional.of(new Violation("gangId", "gangId is '" + gangId + "'; a gang id is a task id of at most "
                    + "249 characters ([A-Za-z0-9] first, then [A-Za-z0-9._:-]), since its members are named <gangId>-<rank>"));
        }
        return Optional.empty();
    }

    /** A sameLabel key: null (no constraint) or a label name. */
    public static Optional<Violation> sameLabel(String key) {
        if (key == null || Rules.isLabelName(key)) {
            return Optional.empty();
        }
        return Optional.of(new Violation("sameLabel", "sameLabel is '" + key + "'; it names one label key, "
                + "e.g. rack or zone ([A-Za-z0-9] at both ends, [A-Za-z0-9._/-] between, at most 63 characters)"));
    }
}
