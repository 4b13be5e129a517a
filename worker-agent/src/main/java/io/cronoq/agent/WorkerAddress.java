package io.cronoq.agent;

import io.cronoq.schemas.rules.Violation;
import java.net.InetAddress;
import java.util.Optional;

/**
 * The address a worker advertises when it registers, told to the members of every gang it runs so
 * their peers can reach it: a host name or IP, optionally with {@code :port}. By default the host's
 * name, or none when the host cannot name itself.
 */
public final class WorkerAddress {

    private static volatile String local;
    private static volatile boolean looked;

    private WorkerAddress() {}

    /** The host's name, looked up once; {@code null} when the lookup fails. */
    static String local() {
        if (!looked) {
            try {
                local = InetAddress.getLocalHost().getHostName();
            } catch (Exception | Error e) {
                local = null;
            }
            looked = true;
        }
        return local;
    }

    /** An address a peer could dial: no blanks, no scheme, a port (when given) between 1 and 65535. */
    public static Optional<Violation> check(String field, String address) {
        if (address == null) {
            return Optional.empty();
        }
        String why = null;
        if (address.isBlank() || address.chars().anyMatch(Character::isWhitespace)) {
            why = "it must be a host name or IP without spaces";
        } else if (address.contains("://") || address.contains("/")) {
            why = "it is a host name or IP, optionally with :port, not a URL";
        } else if (address.length() > 255) {
            why = "it is at most 255 characters";
        } else {
            int colon = address.lastIndexOf(':');
            boolean ipv6 = address.indexOf(':') != colon && !address.startsWith("[");
            if (colon > 0 && !ipv6) {
                String port = address.substring(colon + 1);
                int value = -1;
                try {
                    value = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    // not a number: refused below
                }
                if (value < 1 || value > 65_535) {
                    why = "its port '" + port + "' must be a number from 1 to 65535";
                }
            }
        }
        return why == null ? Optional.empty()
                : Optional.of(new Violation(field, field + " is '" + address + "'; " + why
                        + ", e.g. gpu-07.example.net or 10.0.0.7:29500"));
    }
}
