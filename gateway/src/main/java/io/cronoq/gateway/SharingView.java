package io.cronoq.gateway;

import java.util.List;

/**
 * How one pool is shared between tenants, as {@code GET /v1/tenants} shows it.
 *
 * @param preemption        whether a tenant below its guarantee takes borrowed slots back
 * @param preemptionGraceMs how long such a tenant waits before it does
 * @param slots             slots of the pool's ACTIVE workers
 * @param gpus              GPUs of the pool's ACTIVE workers
 * @param tenants           every tenant with a policy, a slot held or a task waiting, by name
 */
public record SharingView(String pool, boolean preemption, long preemptionGraceMs, int slots, int gpus,
                          List<TenantView> tenants) {}
