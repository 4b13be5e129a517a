package io.cronoq.gateway;

import io.javalin.http.Context;
import java.util.Locale;
import java.util.Set;

/**
 * A request body is JSON: any call that carries a body ({@code Content-Length} above 0, or a
 * chunked one) must send {@code Content-Type: application/json} (a {@code charset} parameter, if
 * any, must be UTF-8), else 415 UNSUPPORTED_MEDIA_TYPE. A call without a body and without a
 * {@code Content-Type} reaches its route, whatever its method ({@code curl -X POST .../drain}); a
 * route that needs a body then answers 400 naming what is missing. A POST, PUT or PATCH without a
 * body that declares a Content-Type other than JSON is still 415.
 *
 * <p>Why: a web page can make a browser send a text/plain or form POST cross-site without asking
 * first, and a POST with no body and no Content-Type too; it cannot send {@code application/json}
 * without a CORS preflight, which the gateway never grants. A browser marks every POST it sends with
 * {@code Origin} (and a current one with {@code Sec-Fetch-Site}), so a POST without a body and
 * without a Content-Type that carries either (other than {@code Sec-Fetch-Site: none}, typed by the
 * user) is 415 as well: a page a developer visits cannot drain workers on an open gateway. PUT,
 * PATCH and DELETE always need a preflight cross-site, so they need no such check.
 */
final class JsonOnly {

    /** The methods whose declared Content-Type, with a body or without, must be JSON. */
    private static final Set<String> DECLARING = Set.of("POST", "PUT", "PATCH");
    static final String JSON = "application/json";

    private JsonOnly() {}

    /** The before-handler: lets the request through or throws 415. */
    static void check(Context ctx) {
        String method = ctx.req().getMethod().toUpperCase(Locale.ROOT);
        String declared = ctx.header("Content-Type");
        boolean undeclared = declared == null || declared.isBlank();
        boolean body = hasBody(ctx);
        if (!body) {
            if (undeclared) {
                String mark = method.equals("POST") ? browserMark(ctx) : null;
                if (mark != null) {
                    throw refused("this POST has no body and no Content-Type, and comes from a web page (" + mark
                            + ")");
                }
                return;
            }
            if (!DECLARING.contains(method)) {
                return;
            }
        }
        if (undeclared) {
            throw refused("this " + method + " has a body but declares no Content-Type");
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

    /** The header that marks the call as a browser's ({@code Origin: https://…}), or null. */
    private static String browserMark(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin != null) {
            return "Origin: " + shown(origin);
        }
        String site = ctx.header("Sec-Fetch-Site");
        if (site != null && !site.trim().equalsIgnoreCase("none")) {
            return "Sec-Fetch-Site: " + shown(site);
        }
        return null;
    }

    private static ApiException refused(String what) {
        return new ApiException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, what + "; send Content-Type: application/json "
                + "(optionally with charset=utf-8) and a JSON body", "Content-Type", null);
    }

    private static String shown(String value) {
        return value.length() > 64 ? value.substring(0, 64) + "..." : value;
    }
}
