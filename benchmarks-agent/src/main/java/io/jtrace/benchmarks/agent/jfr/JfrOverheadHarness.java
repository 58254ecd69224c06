package io.jtrace.benchmarks.agent.jfr;

import io.jtrace.benchmarks.agent.child.ChildRuns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What JFR's {@code default} (or, with {@code --settings profile}, {@code profile}) settings cost a
 * service through jtrace, against the same settings through
 * JFR's own {@code -XX:StartFlightRecording}, measured side by side: each round runs {@link ServiceWorkload}
 * in a fresh JVM once per configuration (the order rotated every round, so no configuration always
 * runs first or last) and takes its requests per second; each configuration's throughput is divided by
 * that of the untraced run of the same round. Prints every run, then per configuration the median ratio
 * and the range over rounds, the CPU per request, the CPU that JIT compilation and jtrace's own threads
 * took in the measured time (a warm-up too short for the machine's load leaves JIT work, jvm.jfr's
 * late JFR start-up above all, inside it), and the machine's load average before and after.
 *
 * <pre>java -cp benchmarks-agent/target/agent-benchmarks.jar io.jtrace.benchmarks.agent.jfr.JfrOverheadHarness
 *     [--rounds 5] [--warmup 25] [--seconds 15] [--workers 4] [--settings default|profile]
 *     [--configs none,jfr,jtrace-jfr,jtrace-all-jfr] (also jtrace, both)
 *     [--agent agent/target/jtrace.jar] [--java path/to/bin/java] [--dir benchmarks-agent/target/jfr-overhead]</pre>
 *
 * The files of the last round are kept in {@code --dir} for inspection ({@code java -jar jtrace.jar
 * summary …}, {@code jfr summary …}).
 */
public final class JfrOverheadHarness {
    private JfrOverheadHarness() {}

    /** A way to run the workload: what is added to the java command line. */
    record Config(String name, String description, List<String> jvmArgs) {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = ChildRuns.options(args, "[--rounds 5] [--warmup 25] [--seconds 15] [--workers 4] [--settings default|profile]"
                + " [--configs none,jfr,jtrace-jfr,jtrace-all-jfr] [--agent jar] [--java bin/java] [--dir dir]");
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
        long warmupMillis = (long) (Double.parseDouble(options.getOrDefault("warmup", "25")) * 1000);
        long millis = (long) (Double.parseDouble(options.getOrDefault("seconds", "15")) * 1000);
        int workers = Integer.parseInt(options.getOrDefault("workers", "4"));
        Path agent = Path.of(options.getOrDefault("agent", "agent/target/jtrace.jar")).toAbsolutePath();
        if (!Files.isRegularFile(agent)) {
            throw new IllegalArgumentException("no agent jar at " + agent + ": build it (mvn package) or pass --agent");
        }
        String java = options.getOrDefault("java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path dir = Files.createDirectories(Path.of(options.getOrDefault("dir", "benchmarks-agent/target/jfr-overhead")).toAbsolutePath());
        String settings = options.getOrDefault("settings", "default");
        if (!settings.equals("default") && !settings.equals("profile")) {
            throw new IllegalArgumentException("--settings: default or profile, not " + settings);
        }
        Map<String, Config> all = configs(agent, dir, settings);
        List<Config> configs = new ArrayList<>();
        for (String name : options.getOrDefault("configs", "none,jfr,jtrace-jfr,jtrace-all-jfr").split(",")) {
            Config c = all.get(name.trim());
            if (c == null) {
                throw new IllegalArgumentException("unknown configuration " + name + "; known: " + all.keySet());
            }
            configs.add(c);
        }
        if (!configs.get(0).name().equals("none")) {
            throw new IllegalArgumentException("the first configuration must be none: the others are divided by it");
        }

        System.out.printf("java %s, JFR settings %s, %d workers, %d s warm-up + %d s measured, %d rounds, load average %s%n",
                version(java), settings, workers, warmupMillis / 1000, millis / 1000, rounds, loadAverage());
        for (Config c : configs) {
            System.out.printf("  %-15s %s%n", c.name(), c.description());
        }
        Map<String, List<Double>> opsPerSecond = new LinkedHashMap<>();
        Map<String, List<Double>> cpuPerOp = new LinkedHashMap<>();
        Map<String, List<Double>> jit = new LinkedHashMap<>();
        Map<String, List<Double>> jtraceThreads = new LinkedHashMap<>();
        configs.forEach(c -> {
            opsPerSecond.put(c.name(), new ArrayList<>());
            cpuPerOp.put(c.name(), new ArrayList<>());
            jit.put(c.name(), new ArrayList<>());
            jtraceThreads.put(c.name(), new ArrayList<>());
        });
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < configs.size(); i++) {
                Config c = configs.get((i + round) % configs.size());
                List<String> command = new ArrayList<>();
                command.add(java);
                command.add("-Xms256m");
                command.add("-Xmx256m");
                command.add("-Dworkload.threadCpu=true");
                command.addAll(c.jvmArgs());
                command.addAll(List.of("-cp", ChildRuns.ownJar(JfrOverheadHarness.class), ServiceWorkload.class.getName(), String.valueOf(workers),
                        String.valueOf(warmupMillis), String.valueOf(millis), dir.toString()));
                Map<String, String> result = ChildRuns.run(command);
                if (!result.containsKey("OPS_PER_S")) {
                    throw new IllegalStateException("child printed no OPS_PER_S: " + command + "\n" + result);
                }
                double ops = Double.parseDouble(result.get("OPS_PER_S"));
                double cpuMicrosPerOp = Long.parseLong(result.get("CPU_MS")) * 1000.0
                        / (ops * Long.parseLong(result.get("ELAPSED_MS")) / 1000.0);
                double jitPercent = Double.parseDouble(result.getOrDefault("JIT_PERCENT", "0"));
                double jtracePercent = Double.parseDouble(result.getOrDefault("JTRACE_PERCENT", "0"));
                opsPerSecond.get(c.name()).add(ops);
                cpuPerOp.get(c.name()).add(cpuMicrosPerOp);
                jit.get(c.name()).add(jitPercent);
                jtraceThreads.get(c.name()).add(jtracePercent);
                System.out.printf("round %d %-15s %10.0f ops/s  %6.1f µs CPU/op  JIT %5.1f %%  jtrace threads %5.1f %%  %4s GCs  load %s%n",
                        round + 1, c.name(), ops, cpuMicrosPerOp, jitPercent, jtracePercent, result.get("GCS"), loadAverage());
            }
        }

        System.out.printf("%nthroughput as a ratio to none, per round (same round's none run):%n");
        System.out.printf("%-15s %12s %8s %8s %8s %10s %8s %8s%n", "config", "median ops/s", "median", "min", "max",
                "CPU µs/op", "JIT %", "jtrace %");
        List<Double> base = opsPerSecond.get("none");
        for (Config c : configs) {
            List<Double> ratios = new ArrayList<>();
            List<Double> ops = opsPerSecond.get(c.name());
            for (int r = 0; r < rounds; r++) {
                ratios.add(ops.get(r) / base.get(r));
            }
            System.out.printf("%-15s %12.0f %8.3f %8.3f %8.3f %10.1f %8.1f %8.1f%n", c.name(), median(ops), median(ratios),
                    ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                    ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), median(cpuPerOp.get(c.name())),
                    median(jit.get(c.name())), median(jtraceThreads.get(c.name())));
        }
        System.out.println("JIT % and jtrace %: CPU of the JIT compiler threads and of jtrace's own threads over the"
                + " measured time, in % of one core (medians).");
        System.out.println("load average at the end: " + loadAverage());
    }

    /** The configurations, JFR's with {@code settings} ({@code default} or {@code profile}). */
    static Map<String, Config> configs(Path agent, Path dir, String settings) {
        String jfr = "-XX:StartFlightRecording:settings=" + settings + ",filename=";
        String jvmJfr = ",sources=jvm.jfr,jfr=" + settings;
        Map<String, Config> configs = new LinkedHashMap<>();
        configs.put("none", new Config("none", "no agent, no JFR", List.of()));
        configs.put("jfr", new Config("jfr", jfr + "…", List.of(jfr + dir.resolve("jfr.jfr"))));
        configs.put("jtrace-jfr", new Config("jtrace-jfr", "jtrace, sources=jvm.jfr, jfr=" + settings,
                List.of("-javaagent:" + agent + "=start,file=" + dir.resolve("jtrace-jfr.pftrace") + jvmJfr)));
        configs.put("jtrace-all-jfr", new Config("jtrace-all-jfr", "jtrace, default sources + jfr=" + settings,
                List.of("-javaagent:" + agent + "=start,file=" + dir.resolve("jtrace-all-jfr.pftrace") + ",jfr=" + settings)));
        configs.put("jtrace", new Config("jtrace", "jtrace, default sources (no JFR)",
                List.of("-javaagent:" + agent + "=start,file=" + dir.resolve("jtrace.pftrace"))));
        configs.put("both", new Config("both", "jtrace jvm.jfr and -XX:StartFlightRecording, both " + settings + ", in one JVM",
                List.of(jfr + dir.resolve("both.jfr"),
                        "-javaagent:" + agent + "=start,file=" + dir.resolve("both.pftrace") + jvmJfr)));
        return configs;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException e) {
            return "n/a";
        }
    }

    private static String version(String java) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out.lines().findFirst().orElse("?");
    }
}
