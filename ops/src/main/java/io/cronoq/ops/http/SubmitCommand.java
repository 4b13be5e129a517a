package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq submit}: submits a task through the gateway and prints its id. */
@Command(name = "submit", mixinStandardHelpOptions = true, description = "Submit a task; prints its id.")
public final class SubmitCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool to run in.")
    String pool;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "A label the worker must carry (repeatable).")
    Map<String, String> labels;

    @Option(names = "--id", paramLabel = "ID", description = "The task id (default: a new UUID); the same id twice is one task.")
    String id;

    @Option(names = "--payload", paramLabel = "TEXT", description = "The payload, as UTF-8 text.")
    String payload;

    @Option(names = "--payload-file", paramLabel = "FILE", description = "The payload, read from a file (bytes).")
    Path payloadFile;

    @Option(names = "--cpu", paramLabel = "QTY", description = "CPU needed: cores or millicores (2, 0.5, 500m).")
    String cpu;

    @Option(names = "--memory", paramLabel = "QTY", description = "Memory needed: bytes or 8Gi, 512Mi, 2G …")
    String memory;

    @Option(names = "--disk", paramLabel = "QTY", description = "Free disk needed: bytes or 20Gi, 100G …")
    String disk;

    @Option(names = "--gpu", paramLabel = "N", description = "GPUs with free memory needed.")
    Integer gpu;

    @Option(names = "--package", paramLabel = "REQ", description = "A package requirement, e.g. 'torch>=2.0,<3' (repeatable).")
    List<String> packages;

    @Option(names = "--priority", paramLabel = "CLASS", description = "LOW, NORMAL, HIGH or CRITICAL.")
    String priority;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (payload != null && payloadFile != null) {
            throw new IllegalArgumentException("--payload and --payload-file: give one or the other");
        }
        ObjectNode body = GatewayClient.json().createObjectNode().put("pool", pool);
        if (id != null) {
            body.put("id", id);
        }
        if (labels != null) {
            labels.forEach(body.putObject("labels")::put);
        }
        if (payload != null) {
            body.put("payload", payload);
        }
        if (payloadFile != null) {
            if (!Files.isReadable(payloadFile)) {
                throw new IllegalArgumentException("--payload-file " + payloadFile + ": no such readable file");
            }
            body.put("payloadBase64", Base64.getEncoder().encodeToString(Files.readAllBytes(payloadFile)));
        }
        if (cpu != null || memory != null || disk != null || gpu != null || packages != null) {
            ObjectNode resources = body.putObject("resources");
            putIfSet(resources, "cpu", cpu);
            putIfSet(resources, "memory", memory);
            putIfSet(resources, "disk", disk);
            if (gpu != null) {
                resources.put("gpu", gpu);
            }
            if (packages != null) {
                packages.forEach(resources.putArray("packages")::add);
            }
        }
        putIfSet(body, "priority", priority);
        var answer = gateway.client().post("/v1/tasks", body);
        spec.commandLine().getOut().println(gateway.json ? answer.toString() : answer.path("id").asText());
        return 0;
    }

    private static void putIfSet(ObjectNode node, String name, String value) {
        if (value != null) {
            node.put(name, value);
        }
    }
}
