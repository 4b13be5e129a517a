package io.cronoq.schemas.rules;

import java.util.Optional;

/**
 * The address a worker advertises when it registers ({@code WorkerRegistered.address}), told to the
 * members of every gang it runs so their peers can reach it: a host name or IP, optionally with
 * {@code :port}. The same check at every edge: the worker agent, and the scheduler for any producer.
 */
public final class AddressRules {

    private static final String EXAMPLE = ", e.g. gpu-07.example.net, 10.0.0.7:29500 or [fd00::7]:29500";

    private AddressRules() {}

    /**
     * An address a peer could dial, or why not, naming {@code field}: no blanks or commas (peers are listed
     * comma-separated), no scheme or path, a host before any {@code :port}, a port (when given) from 1 to 65535,
     * an IPv6 address bare or in brackets (then with an optional port after them). {@code null} (advertise
     * none) passes.
     */
    public static Optional<Violation> check(String field, String address) {
        if (address == null) {
            return Optional.empty();
        }
        String why = problem(address);
        return why == null ? Optional.empty()
                : Optional.of(new Violation(field, field + " is '" + address + "'; " + why + EXAMPLE));
    }

    private static String problem(String address) {
        if (address.isBlank() || address.chars().anyMatch(Character::isWhitespace)) {
            return "it must be a host name or IP without spaces";
        }
        if (address.contains(",")) {
            return "it must not contain ',' (gang members get their peers' addresses comma-separated)";
        }
        if (address.contains("://") || address.contains("/")) {
            return "it is a host name or IP, optionally with :port, not a URL";
        }
        if (address.length() > 255) {
            return "it is at most 255 characters";
        }
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            if (close < 2) {
                return "an IPv6 address in brackets needs its closing ']'";
            }
            String rest = address.substring(close + 1);
            if (rest.isEmpty()) {
                return null;
            }
            return rest.startsWith(":") ? portProblem(rest.substring(1))
                    : "only ':port' may follow an IPv6 address in brackets";
        }
        int colon = address.indexOf(':');
        if (colon < 0 || colon != address.lastIndexOf(':')) {
            return null; // a host alone, or a bare IPv6 address (no port can follow one unbracketed)
        }
        if (colon == 0) {
            return "it needs a host before ':port'";
        }
        return portProblem(address.substring(colon + 1));
    }

    private static String portProblem(String port) {
        int value = -1;
        if (!port.isEmpty() && port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            value = Integer.parseInt(port);
        }
        return value >= 1 && value <= 65_535 ? null : "its port '" + port + "' must be a number from 1 to 65535";
    }
}
