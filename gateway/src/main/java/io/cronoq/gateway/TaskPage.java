package io.cronoq.gateway;

import java.util.List;

/**
 * {@code GET /v1/tasks}: a page of tasks, newest first.
 *
 * @param next the token that fetches the following page ({@code ?before=}), {@code null} on the last page
 */
public record TaskPage(List<TaskView> tasks, String next) {}
