package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.protos.TrackDescriptor;
import java.io.IOException;
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

    private static List<RunningJvm> startJvms(Path dir, Path socketDir) throws IOException {
        List<RunningJvm> jvms = new ArrayList<>();
        for (int i = 0; i < JDKS.length; i++) {
            Path jvmDir = Files.createDirectories(dir.resolve("jvm" + i));
            jvms.add(new RunningJvm(JDKS[i], "socket=" + socketDir.resolve("producer.sock"), jvmDir, List.of()));
        }
        return jvms;
    }

    private static final String SOURCES = "track_event,jvm.threads";

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
        try (DaemonProcess daemon = new DaemonProcess(socketDir, dir.resolve("daemon-stderr.txt"))) {
            List<RunningJvm> jvms = startJvms(dir, socketDir);
            try {
                List<Integer> pids = daemon.awaitProducers(3);
                for (RunningJvm jvm : jvms) {
                    assertTrue(pids.contains((int) jvm.pid()), "producer pids " + pids + " lack " + jvm.pid());
                }
                Path trace = dir.resolve("three.pftrace");
                // The kill comes 4 s into the session, not into the record's start-up (its JVM, its
                // connection, three producers' data sources), which a loaded machine can stretch to seconds.
                Process record = daemon.record(trace, "12s", SOURCES);
                daemon.awaitTracing(3 * SOURCES.split(",").length);
                Thread.sleep(4000);
                RunningJvm victim = jvms.get(1);
                victim.process.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye
                assertTrue(victim.process.waitFor(30, TimeUnit.SECONDS));
                DaemonProcess.Cli result = DaemonProcess.finish(record);
                assertEquals(0, result.exitCode(), () -> "record failed: " + result.err() + " daemon: " + daemon.stderrText());

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
                long firstTick = model.slicesNamed("tick").get(0).begin();
                // Killed about 4 s into the session: what it committed before, up to its last full chunk, is in.
                assertTrue(lastVictimTick - firstTick > 1_500_000_000L, () -> "the killed JVM's ticks end "
                        + (lastVictimTick - firstTick) / 1_000_000 + " ms into the trace");
                for (RunningJvm survivor : List.of(jvms.get(0), jvms.get(2))) {
                    assertTrue(lastTick(model, survivor.pid()) > lastVictimTick + 2_000_000_000L,
                            "pid " + survivor.pid() + " traced on for the rest of the session");
                }
                assertTrue(daemon.process.isAlive(), "the daemon survives a producer's SIGKILL");
                daemon.awaitProducers(2);
                for (RunningJvm jvm : jvms) {
                    assertTrue(jvm.stderrText().isEmpty() || jvm == victim, () -> "agent stderr: " + jvm.stderrText());
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
        try (DaemonProcess first = new DaemonProcess(socketDir, dir.resolve("daemon1-stderr.txt"))) {
            jvms.addAll(startJvms(dir, socketDir));
            first.awaitProducers(3);
        }
        try (DaemonProcess second = new DaemonProcess(socketDir, dir.resolve("daemon2-stderr.txt"))) {
            second.awaitProducers(3);
            Path trace = dir.resolve("after-restart.pftrace");
            DaemonProcess.Cli result = DaemonProcess.finish(second.record(trace, "3s", SOURCES));
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
