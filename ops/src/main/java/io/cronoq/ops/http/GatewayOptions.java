package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URI;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Where the gateway is and how to authenticate to it: the options of every command that talks HTTP. */
public final class GatewayOptions {

    @Option(names = "--url", paramLabel = "URL", defaultValue = "${CRONOQ_URL:-http://localhost:8080}",
            description = "The gateway's base URL (default: $CRONOQ_URL, else ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--token-env", paramLabel = "VAR",
            description = "Send the bearer token held by this environment variable.")
    String tokenEnv;

    @Option(names = "--json", description = "Print the gateway's JSON answer instead of a table.")
    boolean json;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The command's standard output. */
    PrintWriter out() {
        return command.commandLine().getOut();
    }

    /**
     * With {@code --json}, prints {@code answer} as the gateway sent it and returns true; otherwise
     * returns false, and the command prints the answer for people.
     */
    boolean printedJson(JsonNode answer) {
        if (json) {
            out().println(answer);
        }
        return json;
    }

    /** Prints {@code answer} with {@code --json}, else {@code text}. */
    void print(JsonNode answer, String text) {
        out().println(json ? answer.toString() : text);
    }

    GatewayClient client() {
        URI base;
        try {
            base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--url '" + url + "' is not a URL, e.g. http://localhost:8080");
        }
        if (base.getScheme() == null || base.getHost() == null) {
            throw new IllegalArgumentException("--url '" + url + "' is not an http(s) URL, e.g. http://localhost:8080");
        }
        String token = null;
        if (tokenEnv != null) {
            token = System.getenv(tokenEnv);
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("--token-env " + tokenEnv + ": the variable is unset or empty");
            }
        }
        return new GatewayClient(base, token);
    }
}
