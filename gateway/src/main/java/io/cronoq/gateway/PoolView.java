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
 * @param tenants         each tenant with a policy, a slot held or a task waiting, by name (as {@code /v1/tenants})
 */
public record PoolView(String pool, int capacity, int busy, long waiting, Long oldestWaitingMs, long demand,
                       long unservable, int drainingBusy, List<GroupView> groups, List<TenantView> tenants) {

    /**
     * One group: the workers of the pool with exactly these labels.
     *
     * @param key     the labels as one canonical string ({@code gpu=a100,zone=eu}; {@code ""} for none)
     * @param workers ACTIVE workers
     * @param waiting waiting tasks this group could serve (a task may count toward several groups)
     */
    public record GroupView(Map<String, String> labels, String key, int capacity, int busy, int workers, long waiting,
                            Long oldestWaitingMs, long demand, int drainingBusy) {}
}
