package dev.allot.nodeagent.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code nvidia-smi --query-gpu=index,name,memory.total,utilization.gpu --format=csv,noheader,nounits}:
 * one line per GPU, e.g. {@code 0, NVIDIA H100 80GB HBM3, 81559, 37}. Fields nvidia-smi cannot read come
 * out as {@code [N/A]} or {@code [Not Supported]}; those become unknown rather than failing the node.
 */
public final class NvidiaSmiParser {

    public static final List<String> QUERY_ARGS =
            List.of("--query-gpu=index,name,memory.total,utilization.gpu", "--format=csv,noheader,nounits");

    private NvidiaSmiParser() {
    }

    public static List<Gpu> parse(String output) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : output.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            // The name never contains a comma in practice, but split from both ends to be safe.
            String[] fields = line.split(",");
            if (fields.length < 4) {
                throw new IllegalArgumentException("unexpected nvidia-smi line (want 4 fields): " + line);
            }
            int index = Integer.parseInt(fields[0].trim());
            StringBuilder name = new StringBuilder(fields[1].trim());
            for (int i = 2; i < fields.length - 2; i++) {
                name.append(',').append(fields[i]);
            }
            Long memory = number(fields[fields.length - 2]);
            Long utilisationPercent = number(fields[fields.length - 1]);
            gpus.add(new Gpu(index, name.toString().trim(), memory == null ? 0 : memory,
                    utilisationPercent == null ? null : utilisationPercent / 100.0));
        }
        return gpus;
    }

    private static Long number(String field) {
        String value = field.trim();
        if (value.isEmpty() || value.startsWith("[")) {
            return null;
        }
        return Math.round(Double.parseDouble(value));
    }
}
