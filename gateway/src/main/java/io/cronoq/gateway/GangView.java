package io.cronoq.gateway;

import java.util.List;

/**
 * A gang as {@code GET /v1/gangs/{id}} shows it, read from its members' task records.
 *
 * @param size      how many members it has
 * @param placement {@code ANY}, {@code SPREAD} or {@code PACK}
 * @param sameLabel the label key whose one value every member's worker carries, or {@code null}
 * @param state     {@code SUCCEEDED} when every member succeeded, {@code FAILED} when one failed, {@code CANCELLED}
 *                  when one was cancelled, {@code RUNNING} when every member is assigned, running or succeeded,
 *                  else {@code WAITING}; a member whose record is gone (forgotten, so finished) is left out
 * @param reason    why it waits (member 0's reason), only while {@code state} is {@code WAITING}
 * @param members   every member in rank order
 */
public record GangView(String id, String pool, int size, String placement, String sameLabel, String state,
                       String reason, List<MemberView> members) {

    /**
     * One member of a gang.
     *
     * @param state    the member task's state, {@code null} when its record is gone (forgotten after its retention)
     * @param workerId the worker of its latest attempt, {@code null} before its first
     * @param attempt  the number of its latest attempt, {@code null} before its first
     */
    public record MemberView(String taskId, int rank, String state, String workerId, Integer attempt) {}
}
