package dev.allot.simulator.report;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Minimal JSON writing helpers: deterministic number formatting, string escaping. */
public final class Json {
    private Json() {
    }

    /** A finite number rounded to 6 decimals, plain notation, trailing zeros stripped; NaN/inf as null. */
    public static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        BigDecimal b = BigDecimal.valueOf(v).setScale(6, RoundingMode.HALF_EVEN).stripTrailingZeros();
        if (b.signum() == 0) {
            return "0";
        }
        return b.toPlainString();
    }

    public static String str(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
