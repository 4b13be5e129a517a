package io.cronoq.scheduler.policy.store;

import io.cronoq.schemas.rules.SharingRules;

/**
 * The keys of the waiting lines ({@link WaitingQueue}): each tenant has a line per requirement
 * class. A line key is the requirement key alone for the tenant {@code default}, so the lines of a
 * store written before tenants existed are that tenant's; for any other tenant it is followed by a
 * separator and the tenant's name. The separator is a control character that no valid label,
 * resource request or tenant name contains.
 */
public final class LineKeys {

    private static final char TENANT = '\u001f';

    private LineKeys() {}

    /** The key of the line of {@code tenant} ({@code null}: default) for this requirement key. */
    public static String of(String requirementKey, String tenant) {
        return tenant == null || tenant.equals(SharingRules.DEFAULT_TENANT) ? requirementKey
                : requirementKey + TENANT + tenant;
    }

    /** The requirement key of a line key. */
    public static String requirementKey(String lineKey) {
        int sep = lineKey.indexOf(TENANT);
        return sep < 0 ? lineKey : lineKey.substring(0, sep);
    }

    /** The tenant of a line key ({@code default} when it names none). */
    public static String tenantOf(String lineKey) {
        int sep = lineKey.indexOf(TENANT);
        return sep < 0 ? SharingRules.DEFAULT_TENANT : lineKey.substring(sep + 1);
    }
}
