package io.cronoq.schemas.rules;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the test tables under {@code src/test/resources/pep440/}, ported from Python's packaging:
 * one case a line, fields separated by tabs, {@code \\uXXXX} for characters outside printable ASCII,
 * lines starting with {@code #} ignored.
 */
final class Pep440Tables {

    private Pep440Tables() {}

    /** Every case of the table, each as its fields. */
    static List<String[]> read(String name) {
        try (InputStream in = Pep440Tables.class.getResourceAsStream("/pep440/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test table " + name);
            }
            List<String[]> rows = new ArrayList<>();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = unescape(fields[i]);
                }
                rows.add(fields);
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String unescape(String field) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && field.charAt(i + 1) == '\\') {
                b.append('\\');
                i++;
            } else if (c == '\\' && field.charAt(i + 1) == 'u') {
                b.append((char) Integer.parseInt(field.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
