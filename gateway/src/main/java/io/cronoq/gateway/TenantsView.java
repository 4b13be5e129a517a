package io.cronoq.gateway;

import java.util.List;

/** {@code GET /v1/tenants}: how every pool (or the one asked for) is shared, sorted by pool, as of {@code at}. */
public record TenantsView(String at, List<SharingView> pools) {}
