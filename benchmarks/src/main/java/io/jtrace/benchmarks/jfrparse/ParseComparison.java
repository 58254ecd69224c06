package io.jtrace.benchmarks.jfrparse;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code jtrace convert}, the JDK's {@code RecordingFile} bare read and JMC's
 * {@code JfrLoaderToolkit.loadEvents} (plus a visit of every item) over the same recording, in one run:
 * each parse in a JVM of its own ({@link ParseOnce}), the parsers alternating over rounds, so that
 * memory (max heap, retained heap, max RSS) is each parser's own. Then each parser once more with a
 * small heap ({@code --small-xmx}), to show which of them parse a big recording in bounded memory.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.jtrace.benchmarks.jfrparse.ParseComparison
 *     [--file rec.jfr | --copies 800] [--rounds 3] [--xmx 4g] [--small-xmx 128m] [--java bin/java] [--dir benchmarks/target/jfr-parse]</pre>
 *
 * Without {@code --file} it records {@link DemoRecording} (JFR {@code profile}, 3 s) and concatenates
 * {@code --copies} copies of it into {@code big.jfr} in {@code --dir} (800 copies: about 250 MB).
 */
public final class ParseComparison {
    private ParseComparison() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        String xmx = options.getOrDefault("xmx", "4g");
        String smallXmx = options.getOrDefault("small-xmx", "128m");
        String java = options.getOrDefault("java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path dir = Files.createDirectories(Path.of(options.getOrDefault("dir", "benchmarks/target/jfr-parse")).toAbsolutePath());
        Path recording;
        if (options.containsKey("file")) {
            recording = Path.of(options.get("file")).toAbsolutePath();
            if (!Files.isRegularFile(recording) || !DemoRecording.looksLikeRecording(recording)) {
                throw new IllegalArgumentException(recording + " is not a JFR recording (no FLR magic at its start)");
            }
        } else {
            int copies = Integer.parseInt(options.getOrDefault("copies", "800"));
            Path one = dir.resolve("demo.jfr");
            DemoRecording.record(one);
            recording = dir.resolve("big.jfr");
            DemoRecording.concatenate(one, copies, recording);
            System.out.printf("made %s: %d copies of a %,d-byte profile recording%n", recording, copies, Files.size(one));
        }
        System.out.printf("%s, %,d bytes; java %s; %d rounds, -Xmx%s; load average %s%n", recording, Files.size(recording),
                version(java), rounds, xmx, loadAverage());

        Map<Parser, List<Map<String, String>>> results = new EnumMap<>(Parser.class);
        Parser[] parsers = Parser.values();
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < parsers.length; i++) {
                Parser p = parsers[(i + round) % parsers.length];
                Map<String, String> r = runChild(java, "-Xmx" + xmx, p, recording, dir);
                if (r.containsKey("FAILED")) {
                    throw new IllegalStateException(p + " failed with -Xmx" + xmx + ": " + r.get("FAILED"));
                }
                results.computeIfAbsent(p, k -> new ArrayList<>()).add(r);
                System.out.printf(Locale.ROOT, "round %d %-13s %,11d events %8s ms wall %8s ms CPU  peak heap %5s MB  retained %5s MB  max RSS %5s MB  load %s%n",
                        round + 1, p.name().toLowerCase(Locale.ROOT), Long.parseLong(r.get("EVENTS")), r.get("WALL_MS"), r.get("CPU_MS"),
                        r.get("PEAK_HEAP_MB"), r.get("RETAINED_MB"), r.get("MAX_RSS_MB"), loadAverage());
            }
        }

        double bareRate = medianRate(results.get(Parser.RECORDINGFILE));
        System.out.printf("%nmedians over %d rounds, -Xmx%s:%n", rounds, xmx);
        System.out.printf("%-13s %12s %10s %10s %12s %10s %12s %10s %10s %10s%n", "parser", "events", "wall ms", "CPU ms",
                "events/s", "/ bare", "events/CPU s", "peak heap", "retained", "max RSS");
        for (Parser p : parsers) {
            List<Map<String, String>> rs = results.get(p);
            double rate = medianRate(rs);
            System.out.printf(Locale.ROOT, "%-13s %,12d %10.0f %10.0f %,12.0f %10.2f %,12.0f %7.0f MB %7.0f MB %7.0f MB%n",
                    p.name().toLowerCase(Locale.ROOT), Long.parseLong(rs.get(0).get("EVENTS")), median(rs, "WALL_MS"), median(rs, "CPU_MS"),
                    rate, rate / bareRate, Long.parseLong(rs.get(0).get("EVENTS")) * 1000.0 / median(rs, "CPU_MS"),
                    median(rs, "PEAK_HEAP_MB"), median(rs, "RETAINED_MB"), median(rs, "MAX_RSS_MB"));
        }

        System.out.printf("%nwith -Xmx%s:%n", smallXmx);
        for (Parser p : parsers) {
            Map<String, String> r = runChild(java, "-Xmx" + smallXmx, p, recording, dir);
            System.out.printf(Locale.ROOT, "%-13s %s%n", p.name().toLowerCase(Locale.ROOT), r.containsKey("FAILED") ? "FAILED: " + r.get("FAILED")
                    : String.format(Locale.ROOT, "%,d events in %s ms, max RSS %s MB", Long.parseLong(r.get("EVENTS")), r.get("WALL_MS"), r.get("MAX_RSS_MB")));
        }
        System.out.println("load average at the end: " + loadAverage());
    }

    private static double medianRate(List<Map<String, String>> runs) {
        List<Double> rates = new ArrayList<>();
        for (Map<String, String> r : runs) {
            rates.add(Long.parseLong(r.get("EVENTS")) * 1000.0 / Math.max(1, Long.parseLong(r.get("WALL_MS"))));
        }
        return median(rates);
    }

    private static double median(List<Map<String, String>> runs, String key) {
        List<Double> values = new ArrayList<>();
        runs.forEach(r -> values.add(Double.parseDouble(r.get(key))));
        return median(values);
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The child's KEY=value lines; {@code FAILED} with its last error line when it did not exit 0. */
    private static Map<String, String> runChild(String java, String xmx, Parser parser, Path recording, Path dir)
            throws IOException, InterruptedException, URISyntaxException {
        List<String> command = List.of(java, xmx, "-cp", ownJar(), ParseOnce.class.getName(),
                parser.name().toLowerCase(Locale.ROOT), recording.toString(), dir.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return Map.of("FAILED", "did not finish within 30 minutes");
        }
        Map<String, String> report = new HashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).matches("[A-Z_]+")) {
                report.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        if (p.exitValue() != 0 || !report.containsKey("EVENTS")) {
            String error = out.lines().filter(l -> l.contains("Error") || l.contains("Exception")).findFirst()
                    .orElse("exit " + p.exitValue());
            return Map.of("FAILED", error.strip());
        }
        return report;
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

    private static String ownJar() throws URISyntaxException {
        return Path.of(ParseComparison.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: [--file rec.jfr | --copies 800] [--rounds 3] [--xmx 4g]"
                        + " [--small-xmx 128m] [--java bin/java] [--dir dir]; got " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }
}
