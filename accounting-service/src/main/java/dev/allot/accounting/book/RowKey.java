package dev.allot.accounting.book;

/**
 * Store keys. {@code cluster SEP account SEP hour} with the hour zero-padded, so that the byte order
 * of the UTF-8 keys (RocksDB's order) is (cluster, account, hour) and one account's hours are one
 * contiguous range. SEP is U+0001, lower than any character of a name, so "a" sorts before "a2".
 */
public final class RowKey {
    public static final char SEP = '\u0001';

    private RowKey() {
    }

    public static String account(String cluster, String account) {
        return cluster + SEP + account;
    }

    public static String row(String cluster, String account, long hourStart) {
        String digits = Long.toString(hourStart);
        StringBuilder b = new StringBuilder(cluster.length() + account.length() + 16);
        b.append(cluster).append(SEP).append(account).append(SEP);
        for (int i = digits.length(); i < 13; i++) {
            b.append('0');
        }
        return b.append(digits).toString();
    }

    /** [cluster, account] of an account key. */
    public static String[] parseAccount(String key) {
        int i = key.indexOf(SEP);
        return new String[] {key.substring(0, i), key.substring(i + 1)};
    }

    public static long hourOfRow(String rowKey) {
        return Long.parseLong(rowKey.substring(rowKey.lastIndexOf(SEP) + 1));
    }
}
