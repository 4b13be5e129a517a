package io.cronoq.gateway;

import java.util.List;

/**
 * What a task requests, written the way it is submitted: cpu in cores or millicores ({@code 500m}),
 * memory and disk in the largest exact binary unit ({@code 8Gi}), a GPU count, package requirements.
 */
public record ResourcesView(String cpu, String memory, String disk, Integer gpu, List<String> packages) {}
