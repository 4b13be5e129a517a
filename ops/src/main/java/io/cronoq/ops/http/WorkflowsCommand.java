package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cronoq workflows}: submit a graph of tasks from a JSON file, show one, cancel one. */
@Command(name = "workflows", mixinStandardHelpOptions = true,
        description = "Submit, show and cancel workflows: tasks that start as their parents end.",
        subcommands = {WorkflowsCommand.Submit.class, WorkflowsCommand.Show.class, WorkflowsCommand.Cancel.class},
        footer = {"", "A workflow file is the body of POST /v1/workflows:",
            "  {\"pool\": \"batch\", \"id\": \"etl-1\", \"tasks\": [",
            "    {\"id\": \"extract\"},",
            "    {\"id\": \"load\", \"after\": [\"extract\"], \"payload\": \"...\"}]}",
            "", "Examples:",
            "  cronoq workflows submit etl.json",
            "  cronoq workflows show etl-1 --pool batch",
            "  cronoq workflows cancel etl-1 --pool batch"})
public final class WorkflowsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: a usage error naming them. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "cronoq workflows needs a subcommand: "
                + "`cronoq workflows submit FILE`, `show WORKFLOW_ID --pool POOL` or `cancel WORKFLOW_ID --pool POOL`");
    }

    /** The workflow a command names: its id and its pool. */
    static final class Ref {

        @Parameters(index = "0", paramLabel = "WORKFLOW_ID", description = "The workflow's id.")
        String id;

        @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The workflow's pool.")
        String pool;

        String path() {
            return "/v1/workflows/" + Query.encode(id);
        }
    }

    /** {@code cronoq workflows submit FILE}: prints the tasks' ids, parents first. */
    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = "Submit a workflow from a JSON file ('-' reads standard input); prints its tasks' ids.")
    static final class Submit implements Callable<Integer> {

        @Mixin
        GatewayOptions gateway;

        @Parameters(index = "0", paramLabel = "FILE", description = "The workflow, as POST /v1/workflows takes it.")
        String file;

        @Override
        public Integer call() throws IOException {
            JsonNode body;
            try {
                byte[] bytes = file.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(file));
                body = GatewayClient.json().readTree(bytes);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("FILE: no file " + file + "; give the path of a workflow's JSON");
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("FILE: " + file + " is not JSON (" + e.getOriginalMessage()
                        + "); a workflow is {\"pool\", \"id\", \"tasks\": [...]}");
            }
            JsonNode answer = gateway.client().post("/v1/workflows", body);
            List<String> ids = new ArrayList<>();
            answer.path("tasks").forEach(t -> ids.add(t.asText()));
            gateway.print(answer, String.join("\n", ids));
            return 0;
        }
    }

    /** {@code cronoq workflows show ID --pool POOL}: the workflow's state and each task's, parents first. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show a workflow: its state, and each task's state, parents and why it waits.")
    static final class Show implements Callable<Integer> {

        @Mixin
        GatewayOptions gateway;

        @Mixin
        Ref workflow;

        @Override
        public Integer call() {
            JsonNode answer = gateway.client().get(workflow.path() + new Query().add("pool", workflow.pool));
            if (gateway.printedJson(answer)) {
                return 0;
            }
            PrintWriter out = gateway.out();
            out.printf("Workflow %s in pool %s: %s%n", answer.path("id").asText(), answer.path("pool").asText(),
                    answer.path("state").asText());
            Table table = new Table("TASK", "STATE", "AFTER", "WHY");
            answer.path("tasks").forEach(t -> {
                List<String> parents = new ArrayList<>();
                t.path("after").forEach(p -> parents.add(p.path("task").asText()
                        + (p.path("when").asText().equals("succeeded") ? "" : " (" + p.path("when").asText() + ")")));
                table.row(t.path("id").asText(), Table.text(t, "state"), String.join(", ", parents),
                        Table.text(t.path("waiting"), "reason"));
            });
            table.print(out);
            return 0;
        }
    }

    /** {@code cronoq workflows cancel ID --pool POOL}: cancels what has not ended; prints the tasks cancelled. */
    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = "Cancel every task of a workflow that has not ended; prints their ids.")
    static final class Cancel implements Callable<Integer> {

        @Mixin
        GatewayOptions gateway;

        @Mixin
        Ref workflow;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the journal.")
        String reason;

        @Override
        public Integer call() {
            JsonNode answer = gateway.client().delete(workflow.path()
                    + new Query().add("pool", workflow.pool).add("reason", reason));
            List<String> ids = new ArrayList<>();
            answer.path("cancelled").forEach(t -> ids.add(t.asText()));
            gateway.print(answer, String.join("\n", ids));
            return 0;
        }
    }
}
