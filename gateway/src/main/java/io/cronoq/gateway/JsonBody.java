package io.cronoq.gateway;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A request body read exactly as one JSON value of UTF-8 text: bytes that are not UTF-8 are a 400
 * naming the field that holds them (never replaced by U+FFFD), content after the value is a 400,
 * numbers are kept exact (BigDecimal, never a double that may be infinite), and a failure names
 * the field the parser was in, as the body spells it ({@code prefer[0].labels.zone}).
 */
final class JsonBody {

    private static final ObjectReader READER = Json.MAPPER.reader()
            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private JsonBody() {}

    /** A submission's JSON value (null or a missing node for an empty body); a 400 for the field at fault. */
    static JsonNode read(byte[] body) {
        return read(body, "{\"pool\":\"default\",\"payload\":\"hello\"}");
    }

    /**
     * The body's JSON value (null or a missing node for an empty body); a 400 for the field at fault,
     * whose message shows {@code example}, a body of the route's own.
     */
    static JsonNode read(byte[] body, String example) {
        refuseMalformedUtf8(body);

        JsonNode root;
        JsonParser parser = null;
        try {
            parser = READER.createParser(body);
            root = READER.readTree(parser);
            if (root != null && !root.isMissingNode()) {
                refuseTrailing(parser);
            }
        } catch (JsonProcessingException e) {
            String field = fieldAt(parser == null ? null : parser.getParsingContext());
            throw ApiException.invalid(field, (field.equals("body") ? "the body" : field) + " is not JSON ("
                    + shown(e.getOriginalMessage(), 200) + "); send one JSON object such as " + example);
        } catch (IOException | RuntimeException e) {
            // e.g. a number whose exponent no BigDecimal holds (1e9999999999): the parser is on its field
            throw BodyFields.unforeseen(fieldAt(parser == null ? null : parser.getParsingContext()), e);
        } finally {
            if (parser != null) {
                try {
                    parser.close();
                } catch (IOException ignored) {
                    // a parser over a byte array holds nothing to release
                }
            }
        }
        return root;
    }

    /**
     * Refuses anything but whitespace after the body's object ({@code {"pool":"a"} {"pool":"b"}} is
     * not pool a): what {@code FAIL_ON_TRAILING_TOKENS} checks, done here on the parser the tree
     * was read from so that a failure inside the object keeps the parser's place for its field.
     */
    private static void refuseTrailing(JsonParser parser) {
        boolean more;
        try {
            more = parser.nextToken() != null;
        } catch (IOException | RuntimeException e) {
            more = true;
        }
        if (more) {
            throw ApiException.invalid("body", "the body goes on after its JSON object; send one JSON object and "
                    + "nothing after it");
        }
    }

    /**
     * Refuses a body that is not UTF-8, naming the field whose text holds the first bad byte
     * ({@code payload}: send such bytes as {@code payloadBase64}), or the body when no field does.
     */
    private static void refuseMalformedUtf8(byte[] body) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(Math.min(body.length, 8192) + 1);
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                throw notUtf8(in.position(), fieldHolding(body, in.position()));
            }
            if (result.isUnderflow()) {
                result = decoder.flush(out);
                if (result.isError()) {
                    throw notUtf8(in.position(), fieldHolding(body, in.position()));
                }
                return;
            }
            out.clear();
        }
    }

    private static ApiException notUtf8(long offset, String field) {
        if (field.equals("payload")) {
            return ApiException.invalid("payload", "payload is not UTF-8 text (byte " + offset + " of the body is not "
                    + "UTF-8); payload carries text only: send bytes base64-encoded as payloadBase64");
        }
        return ApiException.invalid(field, (field.equals("body") ? "the body" : field) + " is not UTF-8 (byte " + offset
                + " of the body is not); a JSON body is UTF-8 text");
    }

    /** The field whose name or text spans {@code offset} in the body, or {@code "body"}. */
    private static String fieldHolding(byte[] body, long offset) {
        try (JsonParser parser = Json.MAPPER.getFactory().createParser(body)) {
            while (true) {
                JsonToken token;
                try {
                    token = parser.nextToken();
                } catch (IOException | RuntimeException e) {
                    // Bad bytes between tokens or in a field's name: they belong to the enclosing object or list.
                    return fieldAt(parser.getParsingContext().getParent());
                }
                if (token == null) {
                    return "body";
                }
                long start = parser.currentTokenLocation().getByteOffset();
                if (token == JsonToken.VALUE_STRING) {
                    try {
                        parser.getText();
                    } catch (IOException | RuntimeException e) {
                        return fieldAt(parser.getParsingContext());
                    }
                }
                long end = parser.currentLocation().getByteOffset();
                if (start <= offset && offset < end) {
                    JsonStreamContext context = parser.getParsingContext();
                    return token == JsonToken.FIELD_NAME ? fieldAt(context.getParent()) : fieldAt(context);
                }
                if (start > offset) {
                    return "body";
                }
            }
        } catch (IOException e) {
            return "body";
        }
    }

    /** A parser's place as the body spells a field ({@code prefer[0].labels.zone}), or {@code "body"} at the top. */
    static String fieldAt(JsonStreamContext context) {
        Deque<String> parts = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inObject() && c.getCurrentName() != null) {
                parts.push("." + c.getCurrentName());
            } else if (c.inArray()) {
                parts.push("[" + Math.max(c.getCurrentIndex(), 0) + "]");
            }
        }
        String path = String.join("", parts);
        path = path.startsWith(".") ? path.substring(1) : path;
        return path.isEmpty() ? "body" : shown(path, 200);
    }

    static String shown(String text, int max) {
        if (text == null) {
            return "";
        }
        return text.length() > max ? text.substring(0, max) + "..." : text;
    }
}
