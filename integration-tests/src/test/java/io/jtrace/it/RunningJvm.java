package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.jtrace.it.workload.AttachWorkload;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child JVM running {@link AttachWorkload} (a "tick" slice every few ms) or another workload that
 * prints READY, for a test to control from outside with the JDK's {@code jcmd}, JMX or jtrace's CLI;
 * killed on close.
 */
final class RunningJvm implements AutoCloseable {
    private static final Pattern RETURN_CODE = Pattern.compile("return code: (-?\\d+)");

    /** What {@code jcmd <pid> JVMTI.agent_load jtrace.jar <command>} printed, and the return code it reported. */
    record Jcmd(int exitCode, int returnCode, String output) {
    }

    final Path launcher;
    final Process process;
    final Path stderr;
    /** The workload's stdout, read past its READY line. */
    private final BufferedReader stdout;

    /**
     * Starts the workload on {@code jdk}; {@code agentOptions} null for no {@code -javaagent}, else the
     * options after {@code =} ("" for none).
     */
    RunningJvm(String jdk, String agentOptions, Path dir, List<String> flags) throws IOException {
        this(jdk, agentOptions, dir, flags, AttachWorkload.class.getName(), "300");
    }

    /** Starts {@code mainClass}, which must print READY first, on {@code jdk}. */
    RunningJvm(String jdk, String agentOptions, Path dir, List<String> flags, String mainClass, String... args)
            throws IOException {
        this.launcher = ChildJvm.java(jdk);
        this.stderr = dir.resolve("child-stderr.txt");
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        // Silences the JVM's own warning about agents loaded at run time (JDK 21+), as the README tells users.
        command.add("-XX:+EnableDynamicAgentLoading");
        if (agentOptions != null) {
            command.add("-javaagent:" + ChildJvm.agentJar().toAbsolutePath()
                    + (agentOptions.isEmpty() ? "" : "=" + agentOptions));
        }
        command.addAll(flags);
        command.add("-cp");
        command.add(System.getProperty("jtrace.workloadClasspath") + File.pathSeparator
                + ChildJvm.agentJar().toAbsolutePath());
        command.add(mainClass);
        command.addAll(List.of(args));
        this.process = new ProcessBuilder(command).directory(dir.toFile()).redirectError(stderr.toFile()).start();
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("READY", stdout.readLine(), () -> "the workload did not start: " + stderrText());
    }

    long pid() {
        return process.pid();
    }

    /** Runs the JDK's own jcmd with {@code JVMTI.agent_load jtrace.jar <command>}. */
    Jcmd jcmd(String command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(launcher.resolveSibling("jcmd").toString(), String.valueOf(pid()),
                "JVMTI.agent_load", ChildJvm.agentJar().toAbsolutePath().toString()));
        if (!command.isEmpty()) {
            // jcmd splits its own arguments at '=': the agent's options go in double quotes.
            args.add("\"" + command + "\"");
        }
        Process jcmd = new ProcessBuilder(args).redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
            jcmd.destroyForcibly();
            throw new AssertionError("jcmd did not finish: " + output);
        }
        Matcher m = RETURN_CODE.matcher(output);
        return new Jcmd(jcmd.exitValue(), m.find() ? Integer.parseInt(m.group(1)) : Integer.MIN_VALUE, output);
    }

    /**
     * The workload's next stdout line that starts with {@code prefix}, skipping others; fails if none
     * comes within {@code timeoutSeconds} or the workload's stdout ends first. After a timeout its reader
     * reads on until the workload is closed: the test is over then.
     */
    String awaitStdoutLine(String prefix, long timeoutSeconds) throws Exception {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                for (String l = stdout.readLine(); l != null; l = stdout.readLine()) {
                    if (l.startsWith(prefix)) {
                        line.complete(l);
                        return;
                    }
                }
                line.complete(null);
            } catch (IOException e) {
                line.completeExceptionally(new UncheckedIOException(e));
            }
        }, "stdout-of-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        try {
            String found = line.get(timeoutSeconds, TimeUnit.SECONDS);
            assertNotNull(found, () -> "the workload's stdout ended without a line starting " + prefix
                    + "; stderr:\n" + stderrText());
            return found;
        } catch (TimeoutException e) {
            throw new AssertionError("no line starting " + prefix + " on the workload's stdout within "
                    + timeoutSeconds + " s; stderr:\n" + stderrText());
        }
    }

    String stderrText() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
