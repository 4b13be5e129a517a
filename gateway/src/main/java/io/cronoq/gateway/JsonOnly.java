package io.cronoq.gateway;

import io.javalin.http.Context;
import java.util.Locale;
import java.util.Set;

/**
 * Every call that may change state declares a JSON body: a POST, PUT or PATCH — with a body or
 * without — and any other call that carries a body must send {@code Content-Type: application/json}
 * (a {@code charset} parameter, if any, must be UTF-8), else 415 UNSUPPORTED_MEDIA_TYPE. A web page
 * can send a cross-site text/plain or form POST without asking first; it cannot send
 * {@code application/json} without a CORS preflight, which the gateway never grants — so a page a
 * developer visits cannot submit tasks or drain workers on an open gateway.
 */
final class JsonOnly {

    private static final Set<String> ALWAYS = Set.of("POST", "PUT", "PATCH");
    static final String JSON = "application/json";

    private JsonOnly() {}

    /** The before-handler: lets the request through or throws 415. */
    static void check(Context ctx) {
        String method = ctx.req().getMethod().toUpperCase(Locale.ROOT);
        if (!ALWAYS.contains(method) && !hasBody(ctx)) {
            return;
        }
        String declared = ctx.header("Content-Type");
        if (declared == null || declared.isBlank()) {
            throw refused("this " + method + " declares no Content-Type");
        }
        String[] parts = declared.split(";");
        if (!parts[0].trim().toLowerCase(Locale.ROOT).equals(JSON)) {
            throw refused("this " + method + " declares Content-Type '" + shown(declared) + "'");
        }
        for (int i = 1; i < parts.length; i++) {
            String[] parameter = parts[i].split("=", 2);
            if (parameter[0].trim().equalsIgnoreCase("charset")) {
                String charset = parameter.length < 2 ? "" : parameter[1].trim().replace("\"", "");
                if (!charset.equalsIgnoreCase("utf-8") && !charset.equalsIgnoreCase("utf8")) {
                    throw refused("this " + method + " declares charset '" + shown(charset) + "'; JSON is UTF-8");
                }
            }
        }
    }

    private static boolean hasBody(Context ctx) {
        return ctx.req().getContentLengthLong() > 0 || ctx.header("Transfer-Encoding") != null;
    }

    private static ApiException refused(String what) {
        return new ApiException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, what + "; send Content-Type: application/json "
                + "(optionally with charset=utf-8) and a JSON body", "Content-Type", null);
    }

    private static String shown(String value) {
        return value.length() > 64 ? value.substring(0, 64) + "..." : value;
    }
}
