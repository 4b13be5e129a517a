package io.cronoq.scheduler.policy.store;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of the waiting lines ({@link WaitingQueue}): each tenant has a line per requirement
 * class and per set of limits its tasks name. A line key is the requirement key alone for the
 * tenant {@code default} and tasks naming no limit, so the lines of a store written before tenants
 * and limits existed keep their keys; a tenant other than the default follows a separator, and the
 * limits (concurrency keys with their max, rate limits with their units, each kind sorted by name)
 * follow another. The separators are control characters that no valid label, resource request,
 * tenant name, concurrency key or rate limit name contains.
 */
public final class LineKeys {

    private static final char TENANT = '\u001f';
    private static final char LIMITS = '\u001d';
    private static final char ITEM = '\u001e';

    private LineKeys() {}

    /** The key of the line of {@code tenant} ({@code null}: default) for this requirement key, naming no limit. */
    public static String of(String requirementKey, String tenant) {
        return tenant == null || tenant.equals(SharingRules.DEFAULT_TENANT) ? requirementKey
                : requirementKey + TENANT + tenant;
    }

    /** The key of the line of {@code tenant} for this requirement key and these limits (either list may be empty). */
    public static String of(String requirementKey, String tenant, List<ConcurrencyKey> keys, List<RateLimitUse> rates) {
        String line = of(requirementKey, tenant);
        if (keys.isEmpty() && rates.isEmpty()) {
            return line;
        }
        return line + LIMITS + limits(keys, rates);
    }

    /** The requirement key of a line key. */
    public static String requirementKey(String lineKey) {
        int end = end(lineKey);
        int sep = lineKey.indexOf(TENANT);
        return sep < 0 || sep > end ? lineKey.substring(0, end) : lineKey.substring(0, sep);
    }

    /** The tenant of a line key ({@code default} when it names none). */
    public static String tenantOf(String lineKey) {
        int end = end(lineKey);
        int sep = lineKey.indexOf(TENANT);
        return sep < 0 || sep > end ? SharingRules.DEFAULT_TENANT : lineKey.substring(sep + 1, end);
    }

    /** The concurrency keys a line key names, with their max ({@code null}: none given), in key order. */
    public static List<ConcurrencyKey> keysOf(String lineKey) {
        List<ConcurrencyKey> keys = new ArrayList<>();
        for (String item : items(lineKey)) {
            if (item.charAt(0) == 'k') {
                int colon = item.indexOf(':');
                String max = item.substring(1, colon);
                keys.add(new ConcurrencyKey(item.substring(colon + 1), max.isEmpty() ? null : Integer.valueOf(max)));
            }
        }
        return keys;
    }

    /** The rate limits a line key names, with their units, in name order. */
    public static List<RateLimitUse> ratesOf(String lineKey) {
        List<RateLimitUse> rates = new ArrayList<>();
        for (String item : items(lineKey)) {
            if (item.charAt(0) == 'r') {
                int colon = item.indexOf(':');
                rates.add(new RateLimitUse(item.substring(colon + 1), Integer.parseInt(item.substring(1, colon))));
            }
        }
        return rates;
    }

    /** Whether a line key names any limit. */
    public static boolean limited(String lineKey) {
        return lineKey.indexOf(LIMITS) >= 0;
    }

    private static int end(String lineKey) {
        int limits = lineKey.indexOf(LIMITS);
        return limits < 0 ? lineKey.length() : limits;
    }

    private static List<String> items(String lineKey) {
        int limits = lineKey.indexOf(LIMITS);
        List<String> items = new ArrayList<>();
        if (limits < 0) {
            return items;
        }
        int from = limits + 1;
        while (from <= lineKey.length()) {
            int to = lineKey.indexOf(ITEM, from);
            if (to < 0) {
                to = lineKey.length();
            }
            if (to > from) {
                items.add(lineKey.substring(from, to));
            }
            from = to + 1;
        }
        return items;
    }

    /** {@code k<max>:<key>} per key, then {@code r<units>:<name>} per rate limit, each kind sorted by name. */
    private static String limits(List<ConcurrencyKey> keys, List<RateLimitUse> rates) {
        if (keys.size() == 1 && rates.isEmpty()) { // the common case, made in one go
            ConcurrencyKey k = keys.get(0);
            return k.getMax() == null ? "k:" + k.getKey() : "k" + k.getMax() + ':' + k.getKey();
        }
        StringBuilder b = new StringBuilder();
        List<ConcurrencyKey> sortedKeys = keys;
        if (keys.size() > 1) {
            sortedKeys = new ArrayList<>(keys);
            sortedKeys.sort((x, y) -> x.getKey().compareTo(y.getKey()));
        }
        for (ConcurrencyKey k : sortedKeys) {
            b.append(b.length() == 0 ? "" : String.valueOf(ITEM)).append('k').append(k.getMax() == null ? "" : k.getMax())
                    .append(':').append(k.getKey());
        }
        List<RateLimitUse> sortedRates = rates;
        if (rates.size() > 1) {
            sortedRates = new ArrayList<>(rates);
            sortedRates.sort((x, y) -> x.getName().compareTo(y.getName()));
        }
        for (RateLimitUse r : sortedRates) {
            b.append(b.length() == 0 ? "" : String.valueOf(ITEM)).append('r').append(r.getUnits()).append(':')
                    .append(r.getName());
        }
        return b.toString();
    }
}
