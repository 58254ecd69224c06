package io.jtrace.benchmarks.agent.child;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the harnesses share: starting a child JVM that prints its report as {@code KEY=value} lines,
 * the jar they run from (the children's class path), and their {@code --name value} options.
 */
public final class ChildRuns {
    private ChildRuns() {}

    /** Runs {@code command} (its stderr to ours) and returns its {@code KEY=value} lines; fails if it fails. */
    public static Map<String, String> run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("child failed: " + command + "\n" + out);
        }
        Map<String, String> report = new HashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                report.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        return report;
    }

    /** The jar (or classes directory) {@code harness} was loaded from. */
    public static String ownJar(Class<?> harness) throws URISyntaxException {
        return Path.of(harness.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** {@code --name value} pairs; anything else is an error that shows {@code usage}. */
    public static Map<String, String> options(String[] args, String usage) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: " + usage + "; got " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }
}
