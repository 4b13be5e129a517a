package io.cronoq.scheduler.auth;

import java.security.MessageDigest;
import java.util.List;
import java.util.Set;

/**
 * One configured token: its name, role, the pools it may act in ({@code null} = every pool) and, for
 * a worker, the {@code name=value} labels it may claim and the worker ids it may register under
 * ({@code null} = any), and the tenant its submissions are run for ({@code null} = the one each
 * submission names). The secret never leaves this object in
 * text: {@link #toString()} redacts it and {@link #matches} compares in constant time.
 */
public final class Credential {

    private final String name;
    private final Role role;
    private final byte[] secret;
    private final Set<String> pools;
    private final Set<String> labels;
    private final WorkerIdGlobs workerIds;
    private final String tenant;

    /** A credential whose workers may register under any worker id. */
    public Credential(String name, Role role, byte[] secret, Set<String> pools, Set<String> labels) {
        this(name, role, secret, pools, labels, null);
    }

    /**
     * A credential whose workers may register only under ids matching one of {@code workerIds}
     * (globs, {@code *} for any run of characters; {@code null} = any id).
     */
    public Credential(String name, Role role, byte[] secret, Set<String> pools, Set<String> labels,
                      List<String> workerIds) {
        this(name, role, secret, pools, labels, workerIds, null);
    }

    /**
     * A credential bound to {@code tenant} as well ({@code null}: none): a submission made with it
     * runs for that tenant, and one naming another tenant is refused.
     */
    public Credential(String name, Role role, byte[] secret, Set<String> pools, Set<String> labels,
                      List<String> workerIds, String tenant) {
        this.tenant = tenant;
        this.name = name;
        this.role = role;
        this.secret = secret.clone();
        this.pools = pools == null ? null : Set.copyOf(pools);
        this.labels = Set.copyOf(labels);
        this.workerIds = workerIds == null ? null : WorkerIdGlobs.of(workerIds);
    }

    public String name() {
        return name;
    }

    public Role role() {
        return role;
    }

    /** The secret's bytes (a copy), for signing and verifying HMACs. */
    public byte[] secret() {
        return secret.clone();
    }

    /** Whether {@code candidate} is this credential's secret, in time independent of where they differ. */
    public boolean matches(byte[] candidate) {
        return MessageDigest.isEqual(secret, candidate);
    }

    /** Whether this credential may act in {@code pool}. */
    public boolean allowsPool(String pool) {
        return pools == null || pools.contains(pool);
    }

    /** Whether this credential is confined to some pools (false: every pool). */
    public boolean poolRestricted() {
        return pools != null;
    }

    /** Whether a worker with this credential may claim {@code name=value}; admins may claim any label. */
    public boolean allowsLabel(String name, String value) {
        return role == Role.ADMIN || labels.contains(name + "=" + value);
    }

    public Set<String> labels() {
        return labels;
    }

    /** Whether a worker with this credential may register as {@code workerId}; admins may use any id. */
    public boolean allowsWorkerId(String workerId) {
        return role == Role.ADMIN || workerIds == null || workerIds.allows(workerId);
    }

    /** The worker id globs this credential is bound to, or {@code null} when any id will do. */
    public List<String> workerIds() {
        return workerIds == null ? null : workerIds.globs();
    }

    /** The tenant this credential submits for, or {@code null} when it is bound to none. */
    public String tenant() {
        return tenant;
    }

    @Override
    public String toString() {
        return "Credential{name=" + name + ", role=" + role.configName() + ", pools=" + (pools == null ? "*" : pools)
                + ", labels=" + labels + ", workers=" + (workerIds == null ? "*" : workerIds)
                + (tenant == null ? "" : ", tenant=" + tenant) + ", secret=<redacted>}";
    }
}
