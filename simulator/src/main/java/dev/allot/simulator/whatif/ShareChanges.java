package dev.allot.simulator.whatif;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.allot.simulator.scenario.BudgetFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The proposed share changes: {@code --set ACCOUNT=SHARE} (repeated) and {@code --budgets FILE}, a YAML or JSON
 * mapping of account to share ({@code lab/vision: 2}) or a list of {@code {path, share}} (the API's shape). Shares
 * are bounded as the budget-service bounds them; accounts must exist in the recorded tree (a what-if changes
 * shares, it does not invent teams that ran no job).
 */
public final class ShareChanges {

    /** The budget-service's bounds (BudgetRules.MIN_SHARE / MAX_SHARE). */
    public static final double MIN_SHARE = 1e-6;
    public static final double MAX_SHARE = 1e6;

    private final Map<String, Double> shares;

    private ShareChanges(Map<String, Double> shares) {
        this.shares = Map.copyOf(shares);
    }

    public Map<String, Double> shares() {
        return new java.util.TreeMap<>(shares);
    }

    public boolean isEmpty() {
        return shares.isEmpty();
    }

    /** Parses {@code --set} values and the optional file; later values win ({@code --set} after the file). */
    public static ShareChanges parse(List<String> sets, Path file) {
        Map<String, Double> m = new LinkedHashMap<>();
        if (file != null) {
            m.putAll(readFile(file));
        }
        for (String s : sets) {
            int eq = s.lastIndexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException("--set " + s + ": expected ACCOUNT=SHARE, e.g. lab/vision=2");
            }
            String account = s.substring(0, eq).trim();
            String value = s.substring(eq + 1).trim();
            double share;
            try {
                share = Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--set " + s + ": share '" + value + "' is not a number");
            }
            m.put(account, checkShare("--set " + s, share));
        }
        return new ShareChanges(m);
    }

    private static double checkShare(String where, double share) {
        if (Double.isNaN(share) || share < MIN_SHARE || share > MAX_SHARE) {
            throw new IllegalArgumentException(where + ": share must be a number from " + MIN_SHARE + " to "
                    + MAX_SHARE + ", got " + share);
        }
        return share;
    }

    private static Map<String, Double> readFile(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("--budgets " + file + ": cannot read it as YAML or JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        Map<String, Double> m = new LinkedHashMap<>();
        if (root != null && root.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode v = e.getValue().isObject() ? e.getValue().get("share") : e.getValue();
                m.put(e.getKey(), shareOf(file, e.getKey(), v));
            }
        } else if (root != null && root.isArray()) {
            for (JsonNode item : root) {
                JsonNode path = item.get("path");
                if (path == null || !path.isTextual()) {
                    throw new IllegalArgumentException("--budgets " + file + ": each item needs a 'path' and a 'share'");
                }
                m.put(path.asText(), shareOf(file, path.asText(), item.get("share")));
            }
        } else {
            throw new IllegalArgumentException("--budgets " + file
                    + ": expected a mapping of account to share (lab/vision: 2) or a list of {path, share}");
        }
        return m;
    }

    private static double shareOf(Path file, String account, JsonNode v) {
        if (v == null || !v.isNumber()) {
            throw new IllegalArgumentException("--budgets " + file + ": share of " + account + " must be a number");
        }
        return checkShare("--budgets " + file + ": " + account, v.asDouble());
    }

    /**
     * The tree with these shares.
     *
     * @throws IllegalArgumentException naming the first account the tree does not have
     */
    public BudgetFile applyTo(BudgetFile tree) {
        List<String> unknown = new ArrayList<>();
        for (String a : shares.keySet()) {
            if (!tree.contains(a)) {
                unknown.add(a);
            }
        }
        if (!unknown.isEmpty()) {
            List<String> known = new ArrayList<>();
            tree.entries().forEach(e -> known.add(e.account()));
            throw new IllegalArgumentException("unknown account " + String.join(", ", new java.util.TreeSet<>(unknown))
                    + " in the proposed changes; the recorded tree has: " + String.join(", ", known));
        }
        List<BudgetFile.Entry> out = new ArrayList<>();
        for (BudgetFile.Entry e : tree.entries()) {
            out.add(shares.containsKey(e.account()) ? new BudgetFile.Entry(e.account(), e.parent(), shares.get(e.account()))
                    : e);
        }
        return new BudgetFile(out);
    }
}
