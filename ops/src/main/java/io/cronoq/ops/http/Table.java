package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned columns, for human output. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    /** A field of a gateway answer as a cell: its text, or null (shown as {@code -}) when it is missing or null. */
    static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asText();
    }

    void print(PrintWriter out) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i == columns - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
