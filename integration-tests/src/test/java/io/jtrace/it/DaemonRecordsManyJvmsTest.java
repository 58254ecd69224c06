package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.consumer.IpcTracingConsumer;
import io.jtrace.it.trace.TraceModel;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TracingServiceState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jtrace daemon} with three JVMs (JDK 17, 25, 17) whose agents join it, and one
 * {@code jtrace record} over all of them, as a user runs it: separate processes, real sockets, the
 * shaded jar.
 */
class DaemonRecordsManyJvmsTest {
    private static final String[] JDKS = {"jtrace.jdk17", "jtrace.jdk25", "jtrace.jdk17"};

    @TempDir
    Path dir;

    /** A {@code java -jar jtrace.jar daemon} process; killed (SIGTERM, then SIGKILL) on close. */
    private static final class Daemon implements AutoCloseable {
        final Process process;
        final Path stderr;

        Daemon(Path socketDir, Path stderr) throws IOException {
            this.stderr = stderr;
            this.process = new ProcessBuilder(ChildJvm.java("jtrace.jdk17").toString(), "-jar",
                    ChildJvm.agentJar().toAbsolutePath().toString(), "daemon", "--socket-dir", socketDir.toString())
                    .redirectError(stderr.toFile()).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("jtrace daemon: producers on"), () -> "the daemon said " + line
                    + "; stderr: " + read(stderr));
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    private static List<RunningJvm> startJvms(Path dir, Path socketDir) throws IOException {
        List<RunningJvm> jvms = new ArrayList<>();
        for (int i = 0; i < JDKS.length; i++) {
            Path jvmDir = Files.createDirectories(dir.resolve("jvm" + i));
            jvms.add(new RunningJvm(JDKS[i], "socket=" + socketDir.resolve("producer.sock"), jvmDir, List.of()));
        }
        return jvms;
    }

    /** Waits (bounded) until the daemon has exactly {@code n} producers; returns their pids. */
    private static List<Integer> awaitProducers(Path socketDir, int n) throws Exception {
        TracingServiceState state = null;
        for (int i = 0; i < 300; i++) {
            try (IpcTracingConsumer consumer = IpcTracingConsumer.connect(socketDir.resolve("consumer.sock"), 5000)) {
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

    private record Cli(int exitCode, String out, String err) {}

    private static Process startRecord(Path socketDir, Path trace, String time) throws IOException {
        return new ProcessBuilder(ChildJvm.java("jtrace.jdk17").toString(), "-jar",
                ChildJvm.agentJar().toAbsolutePath().toString(), "record", "--socket",
                socketDir.resolve("consumer.sock").toString(), "--time", time, "--sources", "track_event,jvm.threads",
                "-o", trace.toString()).start();
    }

    private static Cli finish(Process record) throws Exception {
        String out = new String(record.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(record.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(record.waitFor(120, TimeUnit.SECONDS));
        return new Cli(record.exitValue(), out, err);
    }

    /** The pid of each "tick" slice's thread, counted. */
    private static Map<Integer, Integer> ticksByPid(TraceModel trace) {
        Map<Integer, Integer> byPid = new HashMap<>();
        for (TraceModel.SliceRecord tick : trace.slicesNamed("tick")) {
            TrackDescriptor track = trace.tracks.get(tick.track());
            assertTrue(track != null && track.hasThread(), "a tick on a thread track: " + track);
            byPid.merge(track.getThread().getPid(), 1, Integer::sum);
        }
        return byPid;
    }

    @Test
    void oneRecordTracesThreeJvmsAndAKilledOneLeavesTheOthersAndTheDaemonRunning() throws Exception {
        Path socketDir = dir.resolve("sockets");
        try (Daemon daemon = new Daemon(socketDir, dir.resolve("daemon-stderr.txt"))) {
            List<RunningJvm> jvms = startJvms(dir, socketDir);
            try {
                List<Integer> pids = awaitProducers(socketDir, 3);
                for (RunningJvm jvm : jvms) {
                    assertTrue(pids.contains((int) jvm.pid()), "producer pids " + pids + " lack " + jvm.pid());
                }
                Path trace = dir.resolve("three.pftrace");
                Process record = startRecord(socketDir, trace, "8s");
                Thread.sleep(4000);
                RunningJvm victim = jvms.get(1);
                victim.process.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye
                assertTrue(victim.process.waitFor(30, TimeUnit.SECONDS));
                Cli result = finish(record);
                assertEquals(0, result.exitCode(), () -> "record failed: " + result.err() + " daemon: " + read(daemon.stderr));

                TraceModel model = TraceModel.read(trace);
                // The session starts and stops while the workloads are inside a "tick": an end without its
                // begin at the start and a begin without its end at the stop are expected, nothing else.
                assertEquals(List.of(), model.problems.stream()
                        .filter(p -> !p.contains("never ended") && !p.contains("never begun")).toList(), "the trace decodes");
                Map<Integer, Integer> ticks = ticksByPid(model);
                for (RunningJvm jvm : jvms) {
                    assertTrue(ticks.getOrDefault((int) jvm.pid(), 0) > 50, () -> "ticks by pid " + ticks + ", pid "
                            + jvm.pid() + " (" + jvm.stderrText() + ")");
                }
                List<Integer> processes = model.tracks.values().stream().filter(TrackDescriptor::hasProcess)
                        .map(t -> t.getProcess().getPid()).distinct().toList();
                for (RunningJvm jvm : jvms) {
                    assertTrue(processes.contains((int) jvm.pid()), "process tracks " + processes);
                }
                // The survivors kept ticking after the kill; the victim's ticks stop where it died.
                long lastVictimTick = lastTick(model, victim.pid());
                for (RunningJvm survivor : List.of(jvms.get(0), jvms.get(2))) {
                    assertTrue(lastTick(model, survivor.pid()) > lastVictimTick + 2_000_000_000L,
                            "pid " + survivor.pid() + " traced on for the rest of the session");
                }
                assertTrue(daemon.process.isAlive(), "the daemon survives a producer's SIGKILL");
                awaitProducers(socketDir, 2);
                for (RunningJvm jvm : jvms) {
                    assertTrue(read(jvm.stderr).isEmpty() || jvm == victim, () -> "agent stderr: " + read(jvm.stderr));
                }
            } finally {
                for (RunningJvm jvm : jvms) {
                    jvm.close();
                }
            }
        }
    }

    private static long lastTick(TraceModel trace, long pid) {
        long last = Long.MIN_VALUE;
        for (TraceModel.SliceRecord tick : trace.slicesNamed("tick")) {
            if (trace.tracks.get(tick.track()).getThread().getPid() == pid) {
                last = Math.max(last, tick.end());
            }
        }
        return last;
    }

    @Test
    void agentsRejoinADaemonThatRestartedAndTraceAgain() throws Exception {
        Path socketDir = dir.resolve("sockets");
        List<RunningJvm> jvms = new ArrayList<>();
        try (Daemon first = new Daemon(socketDir, dir.resolve("daemon1-stderr.txt"))) {
            jvms.addAll(startJvms(dir, socketDir));
            awaitProducers(socketDir, 3);
        }
        try (Daemon second = new Daemon(socketDir, dir.resolve("daemon2-stderr.txt"))) {
            awaitProducers(socketDir, 3);
            Path trace = dir.resolve("after-restart.pftrace");
            Cli result = finish(startRecord(socketDir, trace, "3s"));
            assertEquals(0, result.exitCode(), result::err);
            Map<Integer, Integer> ticks = ticksByPid(TraceModel.read(trace));
            for (RunningJvm jvm : jvms) {
                assertTrue(ticks.getOrDefault((int) jvm.pid(), 0) > 20, "ticks by pid " + ticks);
                assertTrue(jvm.process.isAlive(), "the daemon going away does not harm its producers");
            }
        } finally {
            for (RunningJvm jvm : jvms) {
                jvm.close();
            }
        }
    }
}
