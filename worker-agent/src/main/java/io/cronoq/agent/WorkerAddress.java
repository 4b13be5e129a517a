package io.cronoq.agent;

import io.cronoq.schemas.rules.AddressRules;
import io.cronoq.schemas.rules.Violation;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The address a worker advertises when it registers, told to the members of every gang it runs so
 * their peers can reach it: a host name or IP, optionally with {@code :port}. By default the host's
 * name, or none when the host cannot name itself.
 */
public final class WorkerAddress {

    private WorkerAddress() {}

    /** The host's name, looked up once (on first use, thread-safely); {@code null} when the lookup fails. */
    static String local() {
        return LocalName.NAME;
    }

    /** Holds the host's name: the lookup runs once, when it is first read. */
    private static final class LocalName {
        static final String NAME = lookUp();

        private static String lookUp() {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException | RuntimeException e) {
                return null;
            }
        }
    }

    /** An address a peer could dial, or why not, naming {@code field} ({@link AddressRules#check}). */
    public static Optional<Violation> check(String field, String address) {
        return AddressRules.check(field, address);
    }
}
