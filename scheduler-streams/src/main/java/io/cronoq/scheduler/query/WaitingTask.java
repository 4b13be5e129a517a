package io.cronoq.scheduler.query;

import io.cronoq.events.TaskRecord;

/**
 * One waiting task with its place in line.
 *
 * @param task        its record; {@code getWaitingReason()} says why it waits, as the policy last said it
 * @param classKey    the labels it requires, as a canonical key
 * @param placeInLine 1 for the head of its class's line
 */
public record WaitingTask(TaskRecord task, String classKey, long placeInLine) {}
