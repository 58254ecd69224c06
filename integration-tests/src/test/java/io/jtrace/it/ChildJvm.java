package io.jtrace.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a workload class in a fresh JVM of a given JDK, with the real jtrace.jar as its agent. */
final class ChildJvm {
    /** {@code pid} is the child's process id (what its trace's process and thread descriptors must say). */
    record Result(int exitCode, String stdout, String stderr, long pid, Duration wallTime) {
        /**
         * The workload's report: its stdout's {@code KEY=number} lines. Any other line is kept with the
         * value -1, so a test that expects exactly its keys sees whatever else was printed (the agent
         * must print nothing there).
         */
        Map<String, Long> report() {
            Map<String, Long> values = new HashMap<>();
            for (String line : stdout.split("\\R")) {
                if (line.isBlank()) {
                    continue;
                }
                int eq = line.indexOf('=');
                try {
                    values.put(eq < 0 ? line : line.substring(0, eq), eq < 0 ? -1 : Long.parseLong(line.substring(eq + 1).trim()));
                } catch (NumberFormatException e) {
                    values.put(line, -1L);
                }
            }
            return values;
        }
    }

    static final List<String> DEFAULT_JVM_FLAGS = List.of("-Xmx256m");
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);
    private static final int TAIL_CHARS = 4000;

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("jtrace.agentJar", "../agent/target/jtrace.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("jtrace.jar not found at " + jar.toAbsolutePath()
                    + ": build the agent module first (mvn package)");
        }
        return jar;
    }

    /** The java launcher of a JDK that must exist: a missing JDK fails the test, it never skips. */
    static Path java(String jdkProperty) {
        String home = System.getProperty(jdkProperty);
        if (home == null || home.isBlank()) {
            throw new IllegalStateException("system property " + jdkProperty + " is not set");
        }
        Path java = Path.of(home, "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new IllegalStateException("JDK " + jdkProperty + " missing: no executable " + java);
        }
        return java;
    }

    static Result run(Path java, String agentOptions, Path workDir, String mainClass, String... args)
            throws IOException, InterruptedException {
        return run(java, agentOptions, workDir, DEFAULT_JVM_FLAGS, DEFAULT_TIMEOUT, mainClass, args);
    }

    /**
     * Runs a child that must leave {@code trace} behind: fails the test, with the ends of the child's
     * output, when it exits with an error or writes no trace, since nothing the trace could show would
     * explain that.
     */
    static Result runTraced(Path java, String agentOptions, Path trace, Path workDir, List<String> jvmFlags,
            Duration timeout, String mainClass, String... args) throws IOException, InterruptedException {
        Result result = run(java, agentOptions, workDir, jvmFlags, timeout, mainClass, args);
        if (result.exitCode() != 0 || !Files.isRegularFile(trace)) {
            throw new AssertionError("child exited with " + result.exitCode()
                    + (Files.isRegularFile(trace) ? "" : " and wrote no trace " + trace)
                    + "\nstdout tail:\n" + tail(result.stdout()) + "\nstderr tail:\n" + tail(result.stderr()));
        }
        return result;
    }

    /**
     * Like {@link #run(Path, String, Path, String, String...)} with the child's own JVM flags (heap,
     * thread stack size) and time limit, for workloads of a real service's size.
     */
    static Result run(Path java, String agentOptions, Path workDir, List<String> jvmFlags, Duration timeout,
            String mainClass, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.add(agentOptions == null
                ? "-javaagent:" + agentJar().toAbsolutePath()
                : "-javaagent:" + agentJar().toAbsolutePath() + "=" + agentOptions);
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("jtrace.workloadClasspath", "target/test-classes"));
        command.add(mainClass);
        command.addAll(List.of(args));
        Path out = workDir.resolve("stdout.txt");
        Path err = workDir.resolve("stderr.txt");
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child JVM did not finish in " + timeout.toSeconds() + " s: " + command
                    + "\nstdout tail: " + tail(Files.readString(out, StandardCharsets.UTF_8))
                    + "\nstderr tail: " + tail(Files.readString(err, StandardCharsets.UTF_8)));
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), process.pid(), wall);
    }

    /** The end of a child's output, enough to see why it failed without flooding the report. */
    static String tail(String output) {
        return output.length() <= TAIL_CHARS ? output : "..." + output.substring(output.length() - TAIL_CHARS);
    }
}
