package dev.allot.budget.ui;

import java.util.Locale;

/** A little SVG writer: escaped text, formatted numbers, team colours that stay put. */
final class Svg {

    private final StringBuilder out = new StringBuilder();

    Svg(int width, int height, String label) {
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"").append(esc(label)).append("\" font-family=\"sans-serif\""
                        + " font-size=\"11\">");
    }

    Svg raw(String s) {
        out.append(s);
        return this;
    }

    Svg text(double x, double y, String anchor, String cls, String text) {
        out.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" text-anchor=\"").append(anchor)
                .append("\" class=\"").append(cls).append("\">").append(esc(text)).append("</text>");
        return this;
    }

    Svg line(double x1, double y1, double x2, double y2, String stroke, String extra) {
        out.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
                .append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(stroke).append("\" ").append(extra)
                .append("/>");
        return this;
    }

    String done() {
        return out.append("</svg>").toString();
    }

    static String n(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A colour per team, the same on every page and every load (hue from the path's hash). */
    static String colour(String account) {
        int hue = Math.floorMod(account == null ? 0 : account.hashCode() * 47, 360);
        return "hsl(" + hue + ",62%,52%)";
    }
}
