package io.cronoq.agent.process;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What a task's process sees of its agent's environment. A task runs code the agent does not trust
 * with the agent's own secrets: the variable that holds the worker's signing secret is never passed
 * on (nor any other variable holding the same value), whatever else is. Two modes:
 * <ul>
 *   <li><b>inherit</b> (the default): the agent's variables, less the withheld ones;</li>
 *   <li><b>pass only</b> ({@code --pass-env NAME}, repeatable, {@code PREFIX*} allowed): only the named
 *       variables and a small baseline a process needs to start ({@link #BASELINE}), less the withheld.</li>
 * </ul>
 * The attempt's own variables ({@code CRONOQ_TASK_ID} …) are added last, and the agent's values of those an attempt
 * may set are never passed on: a child sees only what its attempt set. Immutable and thread-safe.
 */
public final class ChildEnvironment {

    /** Kept in pass-only mode without being named: what a shell and most programs need to start. */
    public static final List<String> BASELINE = List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_*",
            "TZ", "TMPDIR", "TERM");

    private final Supplier<Map<String, String>> agent;
    private final List<String> passOnly;
    private final Set<String> withheldNames;
    private final Set<String> withheldValues;

    private ChildEnvironment(Supplier<Map<String, String>> agent, List<String> passOnly, Set<String> withheldNames,
                             Set<String> withheldValues) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.passOnly = passOnly == null ? null : List.copyOf(passOnly);
        this.withheldNames = Set.copyOf(withheldNames);
        this.withheldValues = Set.copyOf(withheldValues);
    }

    /** The agent's whole environment: for children of an agent that holds no secret. */
    public static ChildEnvironment inheritAll() {
        return new ChildEnvironment(System::getenv, null, Set.of(), Set.of());
    }

    /**
     * The agent's environment ({@code agent}, read at each start), less {@code secretVariable} and any
     * variable whose value is that secret; with {@code passOnly} non-null, only those names and the baseline.
     *
     * @param secretVariable the variable holding the signing secret, or {@code null} when there is none
     * @param passOnly       names or {@code PREFIX*} patterns to pass, or {@code null} to inherit the rest
     */
    public static ChildEnvironment of(Supplier<Map<String, String>> agent, String secretVariable, List<String> passOnly) {
        Set<String> names = secretVariable == null ? Set.of() : Set.of(secretVariable);
        String secret = secretVariable == null ? null : agent.get().get(secretVariable);
        Set<String> values = secret == null || secret.isEmpty() ? Set.of() : Set.of(secret);
        return new ChildEnvironment(agent, passOnly, names, values);
    }

    /**
     * The first pattern of {@code patterns} that would pass {@code variable} on, if any: an operator
     * who asks to pass the secret's own variable is told so rather than obeyed.
     */
    public static String firstMatch(List<String> patterns, String variable) {
        for (String pattern : patterns) {
            if (matches(pattern, variable)) {
                return pattern;
            }
        }
        return null;
    }

    /** The environment of one child: the agent's as this mode passes it, then {@code attempt}'s variables. */
    public Map<String, String> build(Map<String, String> attempt) {
        Map<String, String> out = new TreeMap<>();
        agent.get().forEach((name, value) -> {
            if (passes(name) && !withheldNames.contains(name) && !withheldValues.contains(value)
                    && !ProcessTaskHandler.VARIABLES.contains(name)) {
                out.put(name, value);
            }
        });
        out.putAll(attempt);
        return out;
    }

    private boolean passes(String name) {
        if (passOnly == null) {
            return true;
        }
        return firstMatch(BASELINE, name) != null || firstMatch(passOnly, name) != null;
    }

    private static boolean matches(String pattern, String name) {
        return pattern.endsWith("*")
                ? name.startsWith(pattern.substring(0, pattern.length() - 1))
                : pattern.equals(name);
    }
}
