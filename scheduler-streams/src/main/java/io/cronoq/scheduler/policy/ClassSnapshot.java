package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.ResourceNeed;
import io.cronoq.scheduler.policy.match.Requirement;
import java.time.Instant;
import java.util.SortedMap;

/**
 * One requirement class of one tenant of a pool with waiting tasks, at one moment: the starvation signal. How
 * many wait, since when the first in line waits, and why they wait; read from the class's head and
 * the scheduler's memory, never from the backlog.
 *
 * @param classKey         the requirement's class key ({@link Requirement#parse} reads it)
 * @param tenant           the tenant whose line this is (each tenant has its own line per class)
 * @param labels           the labels its tasks require, sorted by name
 * @param resources        the resources its tasks need ({@link ResourceNeed#NONE} for none)
 * @param waiting          tasks in its line
 * @param capacity         slots of the ACTIVE workers that satisfy it (0: no worker can run it now; all
 *                         these slots are busy while it has a line)
 * @param workers          ACTIVE workers that satisfy it
 * @param headTaskId       the task first in line: the next one a matching slot takes
 * @param headSubmittedAt  when the first in line was submitted (it is the class's earliest submission)
 * @param headWaitingSince since when the first in line waits (later than submission after a retry or a lost attempt)
 * @param reason           why its tasks wait, e.g. {@code 0/7 workers can run it: 4 lack gpu=a100} or
 *                         {@code 3 workers match; all 12 slots busy}, or what of its limits holds it back
 * @param limits           the concurrency keys and rate limits its tasks name, in words, or {@code null} for none
 * @param heldByLimit      whether one of those limits holds its tasks back now (more workers would not start them)
 */
public record ClassSnapshot(String classKey, String tenant, SortedMap<String, String> labels, ResourceNeed resources, long waiting,
                            int capacity, int workers, String headTaskId, Instant headSubmittedAt,
                            Instant headWaitingSince, String reason, String limits, boolean heldByLimit) {}
