package io.cronoq.gateway;

import java.util.List;
import java.util.Map;

/**
 * One pool in a snapshot: capacity and busy are sums over its groups (slots of ACTIVE workers and
 * their attempts); {@code demand} is busy plus the waiting tasks some group of the pool can serve.
 *
 * @param oldestWaitingMs how long the longest-waiting head of a line has waited, {@code null} when nothing waits
 * @param unservable      waiting tasks whose required labels no group carries
 * @param drainingBusy    attempts still finishing on DRAINING workers (in neither capacity nor busy)
 * @param heldByLimits    waiting tasks a concurrency key or rate limit holds back (in neither demand nor
 *                        unservable: more workers would not start them)
 * @param tenants         each tenant with a policy, a slot held or a task waiting, by name (as {@code /v1/tenants})
 * @param limits          the pool's concurrency keys and rate limits (as {@code /v1/limits} without the pool's
 *                        name, keys capped alike)
 * @param classesTotal    the pool's waiting classes, all of them
 * @param classes         its waiting classes, the longest-waiting first; at most the cap ({@link ListCaps#classes()})
 * @param blocked         tasks waiting for their parents: they hold no slot and count in neither waiting nor demand
 */
public record PoolView(String pool, int capacity, int busy, long waiting, Long oldestWaitingMs, long demand,
                       long unservable, int drainingBusy, long heldByLimits, List<GroupView> groups,
                       List<TenantView> tenants, PoolLimitsView limits, int classesTotal, List<ClassView> classes,
                       long blocked) {

    /** A pool with no blocked task. */
    public PoolView(String pool, int capacity, int busy, long waiting, Long oldestWaitingMs, long demand,
                    long unservable, int drainingBusy, long heldByLimits, List<GroupView> groups,
                    List<TenantView> tenants, PoolLimitsView limits, int classesTotal, List<ClassView> classes) {
        this(pool, capacity, busy, waiting, oldestWaitingMs, demand, unservable, drainingBusy, heldByLimits, groups,
                tenants, limits, classesTotal, classes, 0);
    }

    /**
     * One group: the workers of the pool with exactly these labels.
     *
     * @param key     the labels as one canonical string ({@code gpu=a100,zone=eu}; {@code ""} for none)
     * @param workers ACTIVE workers
     * @param waiting waiting tasks this group could serve (a task may count toward several groups)
     */
    public record GroupView(Map<String, String> labels, String key, int capacity, int busy, int workers, long waiting,
                            Long oldestWaitingMs, long demand, int drainingBusy) {}

    /**
     * One line of waiting tasks: one tenant's tasks of one requirement class that name the same limits.
     *
     * @param key             the requirement's class key (its labels, {@code gpu=a100}; then its resources after {@code |})
     * @param waiting         tasks in the line
     * @param headTaskId      the task first in line
     * @param oldestWaitingMs how long the first in line has waited
     * @param workers         ACTIVE workers that satisfy the whole requirement (0: none can run it now)
     * @param limits          the concurrency keys and rate limits its tasks name, in words, or {@code null} for none
     * @param heldByLimit     whether one of those limits holds its tasks back now
     */
    public record ClassView(String key, String tenant, long waiting, String headTaskId, Long oldestWaitingMs,
                            int workers, String limits, boolean heldByLimit) {}
}
