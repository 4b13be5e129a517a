package io.cronoq.ops.sharing;

import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.SharingRules;
import io.cronoq.schemas.rules.Violation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * A tenant's quota as the command line writes it, {@code SCOPE:guaranteed=N[:max=M]} (SCOPE is
 * {@code name=value[,name=value]}, or {@code pool} for the whole pool), read and shown in one place
 * for {@code cronoq tenants} and {@code cronoq simulate}; and a broken sharing rule
 * ({@link SharingRules}) told in terms of the flags that gave the value.
 */
public final class SharingFlags {

    /** The accepted form of a quota, as help and messages state it. */
    public static final String QUOTA_FORM = "SCOPE:guaranteed=N[:max=M] (or SCOPE:max=M alone), SCOPE being "
            + "name=value[,name=value] or pool (the whole pool), e.g. gpu=a100:guaranteed=4:max=16 or pool:max=8";

    /** The scope word for a quota over the whole pool. */
    public static final String WHOLE_POOL = "pool";

    private SharingFlags() {}

    /**
     * Reads {@code SCOPE:guaranteed=N[:max=M]} (a max alone guarantees 0) and checks it by the
     * sharing rules of one quota.
     *
     * @throws IllegalArgumentException saying what is wrong and the accepted form (the caller names the flag)
     */
    public static TenantQuota quota(String text) {
        String[] parts = text.strip().split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("'" + text + "' is not " + QUOTA_FORM);
        }
        Map<String, String> scope = scope(parts[0], text);
        Integer guaranteed = null;
        Integer max = null;
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i].strip();
            if (part.startsWith("guaranteed=") && guaranteed == null) {
                guaranteed = count(part.substring("guaranteed=".length()), "guaranteed", text);
            } else if (part.startsWith("max=") && max == null) {
                max = count(part.substring("max=".length()), "max", text);
            } else {
                throw new IllegalArgumentException("'" + text + "': '" + part + "' is not guaranteed=N or max=M "
                        + "(each at most once); write " + QUOTA_FORM);
            }
        }
        if (guaranteed == null && max == null) {
            throw new IllegalArgumentException("'" + text + "' sets nothing; give guaranteed=N, max=M or both: "
                    + QUOTA_FORM);
        }
        TenantQuota quota = new TenantQuota(new HashMap<>(scope), guaranteed == null ? 0 : guaranteed, max);
        Optional<Violation> broken = SharingRules.quotas(List.of(quota));
        if (broken.isPresent()) {
            throw new IllegalArgumentException("'" + text + "': " + withoutIndex(broken.get().message(), 0));
        }
        return quota;
    }

    /** A quota's scope as the command line writes it: {@code pool}, or {@code a=b,c=d} sorted by name. */
    public static String scope(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return WHOLE_POOL;
        }
        StringJoiner out = new StringJoiner(",");
        new TreeMap<>(labels).forEach((name, value) -> out.add(name + "=" + value));
        return out.toString();
    }

    /** A quota in short, {@code gpu=a100 4/16} (guaranteed / max; {@code -} for no max). */
    public static String describe(Map<String, String> labels, int guaranteed, Integer max) {
        return scope(labels) + " " + guaranteed + "/" + (max == null ? "-" : max);
    }

    /** {@link #describe(Map, int, Integer)} of a quota. */
    public static String describe(TenantQuota quota) {
        return describe(quota.getLabels(), quota.getGuaranteed(), quota.getMax());
    }

    /**
     * A broken sharing rule as a usage error naming the flag that gave the value: a quota's by the
     * {@code quotaFlag} and the text of that quota ({@code quotaTexts}, in the order of the event's
     * quotas), any other field by {@code flagOfField} (e.g. {@code weight} to {@code --weight}).
     */
    public static IllegalArgumentException refusal(Violation v, Map<String, String> flagOfField, String quotaFlag,
                                                   List<String> quotaTexts) {
        String field = v.field();
        if (field.startsWith("quotas[")) {
            int index = Integer.parseInt(field.substring("quotas[".length(), field.indexOf(']')));
            String text = index < quotaTexts.size() ? quotaTexts.get(index) : "";
            return new IllegalArgumentException(quotaFlag + " '" + text + "': " + withoutIndex(v.message(), index));
        }
        if (field.equals("quotas")) {
            return new IllegalArgumentException(quotaFlag + ": " + v.message() + "; give fewer " + quotaFlag);
        }
        return new IllegalArgumentException(flagOfField.getOrDefault(field, field) + ": " + v.message());
    }

    /** The rule's message without the quota's index, which the flag's value already points at. */
    private static String withoutIndex(String message, int index) {
        String prefix = "quotas[" + index + "]";
        return message.replace(prefix + ".", "").replace(prefix + " repeats", "it repeats").replace(prefix, "it");
    }

    private static Map<String, String> scope(String text, String whole) {
        String s = text.strip();
        if (s.equals(WHOLE_POOL)) {
            return Map.of();
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("'" + whole + "' has no scope; write " + QUOTA_FORM);
        }
        Map<String, String> labels = new TreeMap<>();
        for (String pair : s.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + whole + "': scope label '" + pair + "' is not name=value; "
                        + "write " + QUOTA_FORM);
            }
            String name = pair.substring(0, eq).strip();
            if (labels.put(name, pair.substring(eq + 1).strip()) != null) {
                throw new IllegalArgumentException("'" + whole + "': scope label '" + name + "' is given twice");
            }
        }
        Optional<Violation> broken = Rules.labels(labels);
        if (broken.isPresent()) {
            throw new IllegalArgumentException("'" + whole + "': scope " + broken.get().message());
        }
        return labels;
    }

    private static int count(String number, String key, String whole) {
        try {
            return Integer.parseInt(number.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + whole + "': " + key + " '" + number + "' is not a whole number "
                    + "of slots, e.g. " + key + "=4");
        }
    }
}
