package io.cronoq.scheduler.auth;

import io.cronoq.schemas.rules.Rules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The configured tokens ({@code [[auth.tokens]]} of the scheduler's config file), looked up by
 * secret (HTTP bearer tokens) or by name (signed worker registrations). Empty means open: local
 * development only. A malformed entry fails construction with a message naming it.
 */
public final class Credentials {

    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.\\-/]*[A-Za-z0-9])?=[^=\\s]*");
    private static final Set<String> KEYS = Set.of("token_env", "role", "pools", "labels", "workers", "name", "tenant");

    private final Map<String, Credential> byName;

    private Credentials(Map<String, Credential> byName) {
        this.byName = byName;
    }

    /** No tokens: every request and registration is accepted. */
    public static Credentials none() {
        return new Credentials(Map.of());
    }

    public static Credentials of(Collection<Credential> credentials) {
        Map<String, Credential> byName = new LinkedHashMap<>();
        for (Credential c : credentials) {
            if (byName.putIfAbsent(c.name(), c) != null) {
                throw new IllegalArgumentException("two [[auth.tokens]] entries are named '" + c.name() + "'; names must be unique");
            }
        }
        return new Credentials(byName);
    }

    /**
     * Builds the credentials from the {@code [[auth.tokens]]} entries of a config file, reading each
     * secret from the environment variable its {@code token_env} names.
     */
    public static Credentials fromEntries(List<Map<String, Object>> entries, Function<String, String> env) {
        List<Credential> credentials = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            credentials.add(entry(i, entries.get(i), env));
        }
        return of(credentials);
    }

    private static Credential entry(int index, Map<String, Object> entry, Function<String, String> env) {
        Object tokenEnv = entry.get("token_env");
        String where = "[[auth.tokens]] entry " + index + (tokenEnv == null ? "" : " (token_env " + tokenEnv + ")");
        for (String key : entry.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(where + ": unknown key '" + key + "'; known keys: " + KEYS);
            }
        }
        if (!(tokenEnv instanceof String variable) || variable.isBlank()) {
            throw new IllegalArgumentException(where + ": token_env is missing; name the environment variable that holds the secret");
        }
        String secret = env.apply(variable);
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException(where + ": environment variable " + variable + " is unset or empty");
        }
        Object roleName = entry.get("role");
        Role role = roleName instanceof String r ? Role.parse(r).orElse(null) : null;
        if (role == null) {
            throw new IllegalArgumentException(where + ": role is '" + roleName + "'; use admin, submitter, worker or viewer");
        }
        Set<String> pools = entry.containsKey("pools") ? strings(where, "pools", entry.get("pools")) : null;
        Set<String> labels = entry.containsKey("labels") ? strings(where, "labels", entry.get("labels")) : Set.of();
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                throw new IllegalArgumentException(where + ": label '" + label + "' is malformed; write name=value, e.g. gpu=a100");
            }
        }
        Object name = entry.getOrDefault("name", variable);
        if (!(name instanceof String n) || n.isBlank()) {
            throw new IllegalArgumentException(where + ": name must be a non-empty string");
        }
        List<String> workers = entry.containsKey("workers")
                ? List.copyOf(strings(where, "workers", entry.get("workers"))) : null;
        if (workers != null && workers.isEmpty()) {
            throw new IllegalArgumentException(where + ": workers is empty, which would refuse every worker id; "
                    + "list the ids or globs this credential may register under, or leave workers out to allow any id");
        }
        Object tenant = entry.get("tenant");
        if (tenant != null && (!(tenant instanceof String t) || Rules.tenant(t).isPresent())) {
            throw new IllegalArgumentException(where + ": tenant '" + tenant + "' is malformed; a tenant name is 1 to 63 "
                    + "characters: letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
        }
        try {
            return new Credential(n, role, secret.getBytes(StandardCharsets.UTF_8), pools, labels, workers,
                    (String) tenant);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": workers: " + e.getMessage(), e);
        }
    }

    private static Set<String> strings(String where, String key, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new IllegalArgumentException(where + ": " + key + " must be a list of strings, e.g. [\"a\", \"b\"]");
        }
        Set<String> out = new LinkedHashSet<>();
        for (Object item : list) {
            if (!(item instanceof String s)) {
                throw new IllegalArgumentException(where + ": " + key + " must be a list of strings; found " + item);
            }
            out.add(s);
        }
        return out;
    }

    /** Whether no token is configured (open mode). */
    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** The credential whose secret is {@code secret}; every credential is compared, in constant time each. */
    public Optional<Credential> authenticate(String secret) {
        byte[] candidate = secret.getBytes(StandardCharsets.UTF_8);
        Credential found = null;
        for (Credential c : byName.values()) {
            if (c.matches(candidate) && found == null) {
                found = c;
            }
        }
        return Optional.ofNullable(found);
    }

    /** The credential named {@code name}. */
    public Optional<Credential> byName(String name) {
        return Optional.ofNullable(name == null ? null : byName.get(name));
    }

    public Collection<Credential> all() {
        return byName.values();
    }

    @Override
    public String toString() {
        return "Credentials" + byName.values();
    }
}
