package io.cronoq.gateway;

import static io.cronoq.gateway.BodyFields.closed;
import static io.cronoq.gateway.BodyFields.integer;
import static io.cronoq.gateway.BodyFields.optionalText;
import static io.cronoq.gateway.BodyFields.read;
import static io.cronoq.gateway.BodyFields.requiredText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.schemas.rules.GangRules;
import io.cronoq.schemas.rules.Rules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Reads the JSON body of {@code POST /v1/gangs} into one {@link GangSubmitted}: the gang's own fields, then each
 * member as {@link SubmissionParser} reads a task (every task rule, a refusal naming the member's field:
 * {@code members[2].labels}, {@code task.resources.memory}), then what only a gang can break — its size, one
 * Kafka record, and {@link GangRules}, the rules every edge applies (one pool, tenant and priority, one value of
 * the {@code sameLabel} key, no limits and no start times).
 */
final class GangParser {

    /** The fields of the body. */
    static final List<String> FIELDS = List.of("pool", "id", "size", "task", "members", "placement", "sameLabel");

    /** The fields a gang's view shows that the server sets, each with who sets it from what. */
    static final Map<String, String> SERVER_FIELDS = BodyFields.serverFields(
            "state", "the gateway reads a gang's state from its members' (a new gang is WAITING)",
            "reason", "the scheduler says why a gang waits");

    /**
     * The most bytes a gang's members may come to, encoded: a gang travels as one Kafka record (its submission,
     * and its journal entry), which must stay under Kafka's default 1 MB limit with room to spare.
     */
    static final int MAX_GANG_BYTES = Rules.MAX_PAYLOAD_BYTES;

    private static final String EXAMPLE = "{\"pool\":\"gpu\",\"id\":\"train-7\",\"size\":4,\"task\":{\"payload\":\"hi\"}}";

    private final SubmissionParser tasks;
    private final Supplier<Instant> clock;
    private final int maxSize;

    GangParser(Supplier<Instant> clock, int maxSize) {
        this.tasks = new SubmissionParser(clock);
        this.clock = clock;
        this.maxSize = maxSize;
    }

    /**
     * The gang these bytes describe; {@code caller} is the calling credential when the gateway checks tokens
     * (then it is every member's submitter and the gang's, and decides the tenant as for a task), {@code null} on
     * an open gateway.
     */
    GangSubmitted parse(byte[] body, Credential caller) {
        BodyFields.required(body, "pool, and size with task or members", EXAMPLE);
        JsonNode root = JsonBody.read(body, EXAMPLE);
        if (root == null || !root.isObject()) {
            throw ApiException.invalid("body", "the body must be a JSON object such as " + EXAMPLE);
        }
        try {
            return gang(root, caller);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw BodyFields.unforeseen("body", e);
        }
    }

    private GangSubmitted gang(JsonNode root, Credential caller) {
        closed(root, "", FIELDS, SERVER_FIELDS, "a gang");
        String pool = read("pool", () -> requiredText(root, "pool"));
        Rules.pool(pool).ifPresent(v -> {
            throw ApiException.invalid("pool", v.message());
        });
        Shape shape = shape(root);
        String id = read("id", () -> optionalText(root, "id").orElseGet(() -> UUID.randomUUID().toString()));
        GangRules.gangId(id).ifPresent(v -> {
            throw ApiException.invalid("id", v.message());
        });
        GangPlacement placement = read("placement", () -> placement(root));
        String sameLabel = read("sameLabel", () -> sameLabel(root));
        Instant now = clock.get();
        String credential = caller == null ? null : caller.name();

        List<TaskSubmitted> members = new ArrayList<>(shape.size());
        if (shape.template() != null) {
            TaskSubmitted first = member(shape.template(), "task", pool, id, 0, caller, credential, now);
            members.add(first);
            for (int rank = 1; rank < shape.size(); rank++) {
                members.add(TaskSubmitted.newBuilder(first).setTaskId(memberId(id, rank)).build());
            }
        } else {
            for (int rank = 0; rank < shape.size(); rank++) {
                members.add(member(shape.members().get(rank), "members[" + rank + "]", pool, id, rank, caller,
                        credential, now));
            }
        }
        GangMembers.fitOneRecord(members, shape.template() != null, MAX_GANG_BYTES);
        String submitter = caller != null ? caller.name() : members.get(0).getSubmitter();
        GangSubmitted gang = GangSubmitted.newBuilder()
                .setGangId(id)
                .setPool(pool)
                .setPlacement(placement)
                .setSameLabel(sameLabel)
                .setMembers(members)
                .setSubmitter(submitter)
                .setSubmittedAt(now)
                .build();
        // The rules every edge applies (the scheduler's own): what the body's reading above did not already refuse.
        GangRules.check(gang).ifPresent(v -> {
            throw ApiException.invalid(bodyName(v.field(), shape.template() != null), v.message());
        });
        return gang;
    }

    /**
     * A field of {@link GangRules} as the body spells it: {@code gangId} is {@code id}, a member's field is its
     * {@link SubmissionParser#bodyName} under {@code members[i].}, or under {@code task.} when one task is given.
     */
    static String bodyName(String field, boolean template) {
        if (field.equals("gangId")) {
            return "id";
        }
        if (field.equals("members") && template) {
            return "size";
        }
        if (field.startsWith("members[") && field.contains("].")) {
            int dot = field.indexOf("].") + 1;
            String member = SubmissionParser.bodyName(field.substring(dot + 1));
            return (template ? "task" : field.substring(0, dot)) + "." + member;
        }
        return field;
    }

    /** Member {@code rank}'s task id: {@code <gangId>-<rank>} ({@link GangRules#memberId}). */
    static String memberId(String gangId, int rank) {
        return GangRules.memberId(gangId, rank);
    }

    /** The members' task ids, in rank order. */
    static List<String> memberIds(GangSubmitted gang) {
        return gang.getMembers().stream().map(TaskSubmitted::getTaskId).toList();
    }

    /** Whether the body gives {@code size} with {@code task}, or {@code members}: exactly one of the two. */
    private Shape shape(JsonNode root) {
        boolean members = present(root, "members");
        boolean size = present(root, "size");
        boolean task = present(root, "task");
        if (members && size) {
            throw ApiException.invalid("size", "give size with task (that many copies of one task) or members (a "
                    + "list of tasks), not both; leave size out when listing members");
        }
        if (members && task) {
            throw ApiException.invalid("task", "task goes with size; with members, each member is its own task: "
                    + "leave task out");
        }
        if (members) {
            JsonNode list = root.get("members");
            if (!list.isArray()) {
                throw ApiException.invalid("members", "members must be a list of tasks, e.g. [{\"payload\":\"a\"},"
                        + "{\"payload\":\"b\"}], not " + BodyFields.type(list));
            }
            checkSize("members", list.size());
            List<JsonNode> items = new ArrayList<>(list.size());
            list.forEach(items::add);
            return new Shape(list.size(), null, items);
        }
        if (size) {
            int n = read("size", () -> integer(root.get("size"), "size"));
            checkSize("size", n);
            if (!task) {
                throw ApiException.invalid("task", "task is required with size: the task each of the " + n
                        + " members runs, e.g. \"task\":{\"payload\":\"hi\"}");
            }
            return new Shape(n, root.get("task"), null);
        }
        if (task) {
            throw ApiException.invalid("size", "size is required with task: how many members run it, e.g. \"size\":4");
        }
        throw ApiException.invalid("members", "a gang needs members: give \"size\": N with \"task\": {…} (N copies of "
                + "one task), or \"members\": [{…}, …]");
    }

    private void checkSize(String field, int size) {
        if (size < 1 || size > maxSize) {
            throw ApiException.invalid(field, (field.equals("size") ? "size is " + size : "members lists " + size)
                    + "; a gang has 1 to " + maxSize + " members (the gateway's " + GatewaySettings.GANG_MAX_SIZE.name()
                    + ")");
        }
    }

    private static GangPlacement placement(JsonNode root) {
        Optional<String> text = optionalText(root, "placement");
        if (text.isEmpty()) {
            return GangPlacement.ANY;
        }
        try {
            return GangPlacement.valueOf(text.get().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("placement", "placement '" + JsonBody.shown(text.get(), 64) + "' is not one of "
                    + "any (no constraint), spread (each member on its own worker), pack (as few workers as possible)");
        }
    }

    private static String sameLabel(JsonNode root) {
        Optional<String> key = optionalText(root, "sameLabel");
        if (key.isEmpty()) {
            return null;
        }
        if (key.get().isBlank()) {
            throw ApiException.invalid("sameLabel", "sameLabel is blank; give the label key whose one value every "
                    + "member's worker carries, e.g. \"rack\", or leave sameLabel out");
        }
        GangRules.sameLabel(key.get()).ifPresent(v -> {
            throw ApiException.invalid("sameLabel", v.message());
        });
        return key.get();
    }

    /**
     * Member {@code rank}, read from {@code node} at {@code place} ({@code task}, {@code members[2]}) as a task of
     * the gang's pool with the id {@code <gangId>-<rank>}, submitted now by {@code caller}.
     */
    private TaskSubmitted member(JsonNode node, String place, String pool, String gangId, int rank, Credential caller,
                                 String credential, Instant now) {
        if (node == null || !node.isObject()) {
            throw ApiException.invalid(place, place + " must be an object of a task's fields (as POST /v1/tasks "
                    + "takes them, without id), not " + (node == null ? "missing" : BodyFields.type(node)));
        }
        if (node.has("id")) {
            throw ApiException.invalid(place + ".id", "a member's id is the gang's id and its rank (" + memberId(gangId,
                    rank) + "), set by the gateway: leave " + place + ".id out");
        }
        JsonNode named = node.get("pool");
        if (named != null && named.isTextual() && !named.asText().equals(pool)) {
            throw ApiException.invalid(place + ".pool", place + " names pool '" + JsonBody.shown(named.asText(), 64)
                    + "' and the gang pool '" + pool + "': every member runs in the gang's pool; leave " + place
                    + ".pool out or name " + pool);
        }
        ObjectNode task = node.deepCopy();
        task.put("id", memberId(gangId, rank));
        if (named == null || named.isNull()) {
            task.put("pool", pool);
        }
        TaskSubmitted member = GangMembers.within(place, () -> tasks.parse(task, credential));
        GangMembers.refuseWhatGangsDoNotTake(member, place);
        if (caller != null) {
            member.setSubmitter(caller.name());
            member.setTenant(GangMembers.within(place, () -> TenantBinding.tenant(caller, member.getTenant())));
        }
        member.setSubmittedAt(now);
        return member;
    }

    private static boolean present(JsonNode root, String field) {
        JsonNode node = root.get(field);
        return node != null && !node.isNull();
    }

    /** How the body gives its members: {@code size} copies of {@code template}, or the list {@code members}. */
    private record Shape(int size, JsonNode template, List<JsonNode> members) {}
}
