package dev.allot.testsupport;

/** Values from a service's {@code /q/metrics} page (the Prometheus text format), for tests and benchmarks. */
public final class PrometheusText {

    private PrometheusText() {
    }

    /** The value of a metric without labels; an AssertionError when the page does not have it. */
    public static double value(String page, String name) {
        return page.lines().filter(line -> line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1).trim()))
                .findFirst().orElseThrow(() -> new AssertionError(name + " is not on the metrics page"));
    }
}
