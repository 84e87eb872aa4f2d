package dev.allot.cli.render;

import java.util.ArrayList;
import java.util.List;

/** Text that fits a width without cutting a word: wrapped onto lines, or shortened at a word boundary. */
public final class Words {

    private Words() {
    }

    /**
     * Lines of at most {@code width} characters, broken between words; a single word longer than the
     * width (an id, a path) is the only thing ever split, as it cannot fit otherwise.
     */
    public static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        if (text == null || text.isBlank()) {
            lines.add("");
            return lines;
        }
        int w = Math.max(1, width);
        StringBuilder line = new StringBuilder();
        for (String word : text.strip().split("\\s+")) {
            while (word.length() > w) {
                if (!line.isEmpty()) {
                    lines.add(line.toString());
                    line.setLength(0);
                }
                lines.add(word.substring(0, w));
                word = word.substring(w);
            }
            if (line.isEmpty()) {
                line.append(word);
            } else if (line.length() + 1 + word.length() <= w) {
                line.append(' ').append(word);
            } else {
                lines.add(line.toString());
                line.setLength(0);
                line.append(word);
            }
        }
        if (!line.isEmpty()) {
            lines.add(line.toString());
        }
        return lines;
    }

    /** The text if it fits, else as many whole words as fit followed by "…". */
    public static String fit(String text, int width) {
        if (text == null) {
            return "";
        }
        String t = text.strip().replaceAll("\\s+", " ");
        if (t.length() <= width) {
            return t;
        }
        if (width <= 1) {
            return width == 1 ? "…" : "";
        }
        int cut = t.lastIndexOf(' ', width - 1);
        if (cut <= 0) {
            return t.substring(0, width - 1) + "…"; // one long word: nothing shorter to keep whole
        }
        return t.substring(0, cut).replaceAll("[,;:]$", "") + "…";
    }
}
