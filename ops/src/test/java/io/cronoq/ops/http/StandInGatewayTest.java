package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.cronoq.ops.Cronoq;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import picocli.CommandLine;

/**
 * The CLI's HTTP commands against an HTTP server that stands in for the gateway: it records every
 * request ({@code METHOD URI BODY}, then {@code [its Authorization header]} when it has one) and answers {@link #status} with {@link #answer}; {@link #run}
 * runs the CLI with {@code --url} pointing at it.
 */
abstract class StandInGatewayTest {

    static final ObjectMapper JSON = new ObjectMapper();

    final List<String> requests = new CopyOnWriteArrayList<>();
    volatile int status = 202;
    volatile String answer = "{}";
    private HttpServer server;

    /** What a CLI run ended with and printed. */
    record Result(int exit, String out, String err) {}

    @BeforeEach
    void startGateway() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body
                    + (auth == null ? "" : " [" + auth + "]"));
            byte[] out = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopGateway() {
        server.stop(0);
    }

    /** The JSON body of the {@code request}th request. */
    JsonNode body(int request) throws IOException {
        String line = requests.get(request);
        return JSON.readTree(line.substring(line.indexOf('{')));
    }

    /** Runs the CLI with these arguments and {@code --url} of the stand-in. */
    Result run(String... args) {
        CommandLine cli = Cronoq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] withUrl = Stream.concat(Stream.of(args), Stream.of("--url", url())).toArray(String[]::new);
        return new Result(cli.execute(withUrl), out.toString(), err.toString());
    }

    /** The stand-in's base URL. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }
}
