package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.consumer.IpcTracingConsumer;
import io.jtrace.protos.TracingServiceState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code java -jar jtrace.jar daemon --socket-dir <dir>} process, as a user starts it, and the
 * {@code jtrace record} runs a test makes against it; stopped (SIGTERM, then SIGKILL) on close.
 */
final class DaemonProcess implements AutoCloseable {
    /** What a finished CLI process returned and printed. */
    record Cli(int exitCode, String out, String err) {}

    final Process process;
    final Path sockets;
    final Path stderr;

    DaemonProcess(Path sockets, Path stderr) throws IOException {
        this.sockets = sockets;
        this.stderr = stderr;
        this.process = new ProcessBuilder(ChildJvm.java("jtrace.jdk17").toString(), "-jar",
                ChildJvm.agentJar().toAbsolutePath().toString(), "daemon", "--socket-dir", sockets.toString())
                .redirectError(stderr.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null && line.startsWith("jtrace daemon: producers on"), () -> "the daemon said " + line
                + "; stderr: " + stderrText());
    }

    String stderrText() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    /** Waits (bounded) until the daemon has exactly {@code n} producers; returns their pids. */
    List<Integer> awaitProducers(int n) throws Exception {
        TracingServiceState state = null;
        for (int i = 0; i < 300; i++) {
            try (IpcTracingConsumer consumer = IpcTracingConsumer.connect(sockets.resolve("consumer.sock"), 5000)) {
                state = consumer.serviceState().get(10, TimeUnit.SECONDS);
                if (state.getProducersCount() == n) {
                    return state.getProducersList().stream().map(TracingServiceState.Producer::getPid).toList();
                }
            } catch (IOException notYet) {
                // The daemon is still starting: try again.
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the daemon never had " + n + " producers; last state: " + state);
    }

    /**
     * Waits (bounded) until the one session on the daemon (a record's) traces: it has started, with
     * {@code dataSources} data source instances across its producers.
     */
    void awaitTracing(int dataSources) throws Exception {
        TracingServiceState state = null;
        for (int i = 0; i < 600; i++) {
            try (IpcTracingConsumer consumer = IpcTracingConsumer.connect(sockets.resolve("consumer.sock"), 5000)) {
                state = consumer.serviceState().get(10, TimeUnit.SECONDS);
                if (state.getTracingSessionsCount() == 1 && state.getTracingSessions(0).getIsStarted()
                        && state.getTracingSessions(0).getNumDataSources() == dataSources) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the session never started with " + dataSources + " data sources: " + state);
    }

    /** Starts {@code jtrace record} on the daemon's consumer socket. */
    Process record(Path trace, String time, String sources) throws IOException {
        return new ProcessBuilder(ChildJvm.java("jtrace.jdk17").toString(), "-jar",
                ChildJvm.agentJar().toAbsolutePath().toString(), "record", "--socket",
                sockets.resolve("consumer.sock").toString(), "--time", time, "--sources", sources,
                "-o", trace.toString()).start();
    }

    static Cli finish(Process cli) throws Exception {
        String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(cli.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cli.waitFor(120, TimeUnit.SECONDS));
        return new Cli(cli.exitValue(), out, err);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
