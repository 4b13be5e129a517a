package io.cronoq.gateway;

import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.rules.GangRules;
import java.util.Map;

/**
 * The gateway's own settings, read from the scheduler's config as its other {@code cronoq.http.*} settings are:
 * each with its default, a malformed or out-of-range value refused at start naming the setting and the fix.
 */
public final class GatewaySettings {

    /** The most members {@code POST /v1/gangs} takes by default: as many as a gang may have. */
    public static final int DEFAULT_GANG_MAX_SIZE = GangRules.MAX_SIZE;

    /** The most members a gang submitted through the gateway may have; a larger one is 400 naming its size. */
    public static final SchedulerConfig.Key GANG_MAX_SIZE = SchedulerConfig.HTTP_GANG_MAX_SIZE;

    /** The largest value {@link #GANG_MAX_SIZE} takes: the most members a gang may have. */
    static final int GANG_MAX_SIZE_LIMIT = GangRules.MAX_SIZE;

    private GatewaySettings() {}

    /**
     * {@link #GANG_MAX_SIZE} of {@code config}, its default when the config does not carry the setting.
     *
     * @throws IllegalArgumentException naming the setting when its value is not a whole number from 1 to
     *                                  {@link GangRules#MAX_SIZE}
     */
    public static int gangMaxSize(SchedulerConfig config) {
        return gangMaxSize(config.asMap());
    }

    /** {@link #GANG_MAX_SIZE} of these settings (a config's keys and values), as {@link #gangMaxSize(SchedulerConfig)}. */
    static int gangMaxSize(Map<String, String> settings) {
        String raw = settings.get(GANG_MAX_SIZE.name());
        if (raw == null) {
            return DEFAULT_GANG_MAX_SIZE;
        }
        try {
            int value = Integer.parseInt(raw.trim());
            if (value >= 1 && value <= GANG_MAX_SIZE_LIMIT) {
                return value;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(GANG_MAX_SIZE.name() + " is '" + raw + "'; it must be a whole number from 1 "
                + "to " + GANG_MAX_SIZE_LIMIT + " (default " + DEFAULT_GANG_MAX_SIZE + ")");
    }
}
