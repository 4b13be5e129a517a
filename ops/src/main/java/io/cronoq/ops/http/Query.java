package io.cronoq.ops.http;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/** The query string of a gateway call: {@code ?name=value&…} of the values that are set, URL-encoded; empty when none is. */
final class Query {

    private final StringJoiner parameters = new StringJoiner("&", "?", "").setEmptyValue("");

    /** Adds {@code name=value} unless {@code value} is null. */
    Query add(String name, String value) {
        if (value != null) {
            parameters.add(name + "=" + encode(value));
        }
        return this;
    }

    /** {@code value} URL-encoded, for a path segment or a query value. */
    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return parameters.toString();
    }
}
