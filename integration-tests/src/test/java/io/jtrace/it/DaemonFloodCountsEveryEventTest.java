package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.it.trace.LossSummary;
import io.jtrace.it.trace.TrackEventDecoder;
import io.jtrace.it.workload.FloodWorkload;
import io.jtrace.it.workload.GatedFloodWorkload;
import io.jtrace.protos.TrackDescriptor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overload through the daemon, as users run it: a {@code jtrace daemon}, two JVMs (JDK 17 and 25) whose
 * agents joined it, each flooding from two threads far faster than the pipeline can carry, and one
 * {@code jtrace record}. Every event either is in the file or is counted as lost by the JVM that
 * dropped it, exactly; the ring never overwrote what the recording could have read; the agents print
 * nothing but their one loss warning.
 */
class DaemonFloodCountsEveryEventTest {
    private static final String[] JDKS = {"jtrace.jdk17", "jtrace.jdk25"};
    private static final String THREADS = "2";
    private static final String MILLIS = "1500";

    @TempDir
    Path dir;

    @Test
    void everyEventOfTwoFloodingJvmsIsInTheTraceOrCountedLostByItsJvm() throws Exception {
        Path sockets = dir.resolve("sockets");
        Path trace = dir.resolve("flood.pftrace");
        try (DaemonProcess daemon = new DaemonProcess(sockets, dir.resolve("daemon-stderr.txt"))) {
            List<RunningJvm> jvms = new ArrayList<>();
            try {
                for (int i = 0; i < JDKS.length; i++) {
                    jvms.add(new RunningJvm(JDKS[i], "socket=" + sockets.resolve("producer.sock"),
                            Files.createDirectories(dir.resolve("jvm" + i)), List.of("-Xmx256m"),
                            GatedFloodWorkload.class.getName(), THREADS, MILLIS));
                }
                daemon.awaitProducers(jvms.size());
                Process record = daemon.record(trace, "12s", "track_event");
                daemon.awaitTracing(JDKS.length);
                for (RunningJvm jvm : jvms) {
                    OutputStream gate = jvm.process.getOutputStream();
                    gate.write('\n');
                    gate.flush();
                }
                long emittedSlices = 0;
                for (RunningJvm jvm : jvms) {
                    emittedSlices += Long.parseLong(jvm.awaitStdoutLine("SLICES=", 120).substring("SLICES=".length()));
                }
                DaemonProcess.Cli result = DaemonProcess.finish(record);
                assertEquals(0, result.exitCode(), () -> "record failed: " + result.err());
                check(trace, 2 * emittedSlices, jvms);
            } finally {
                for (RunningJvm jvm : jvms) {
                    jvm.close();
                }
            }
        }
    }

    private static void check(Path trace, long emittedEvents, List<RunningJvm> jvms) throws IOException {
        FloodTrace flood = new FloodTrace();
        TrackEventDecoder decoder = TrackEventDecoder.decode(trace, flood);
        LossSummary losses = decoder.losses();
        long eventsInFile = 2 * flood.slices + decoder.unendedSlices() + decoder.unmatchedEnds();
        long counted = flood.lostCounters.values().stream().mapToLong(Long::longValue).sum();
        String line = String.format("DAEMON FLOOD: %d events emitted, %d in the file, %d counted lost %s; trace %.1f MB; %s",
                emittedEvents, eventsInFile, counted, flood.lostCounters, Files.size(trace) / 1e6, losses);
        System.out.println(line);
        assertAll(line,
                () -> assertEquals(0, decoder.eventsSkippedForLostState(), "events that need interned state their sequence lost"),
                () -> assertEquals(List.of(), flood.malformed, "slices with a name or category the workload never used"),
                () -> assertTrue(losses.traceStatsPackets() > 0, "the service reported its counters"),
                () -> assertEquals(0, losses.chunksDiscarded() + losses.invalidPackets() + losses.patchesDiscarded(),
                        "chunks or packets refused by the service"),
                () -> assertEquals(0, losses.buffers().stream().mapToLong(LossSummary.BufferLoss::chunksOverwritten).sum(),
                        "chunks the ring overwrote before the recording read them"),
                () -> assertEquals(jvms.size(), flood.lostCounters.size(), "each JVM wrote its lost-events counter"),
                () -> assertTrue(counted > 0, "the flood overloaded the agents (else this test proves nothing)"),
                () -> assertEquals(emittedEvents, eventsInFile + counted,
                        "events emitted = events in the file + events counted as lost"));
        for (RunningJvm jvm : jvms) {
            String stderr = jvm.stderrText().strip();
            assertTrue(stderr.isEmpty() || stderr.lines().allMatch(
                            l -> l.startsWith("WARN TrackEventDataSource - jtrace track_event: ") && l.contains(" event(s) lost")),
                    () -> "agent stderr of pid " + jvm.pid() + ": " + stderr);
        }
    }

    /** The workload's slices, and each process's lost-events counter. */
    private static final class FloodTrace implements TrackEventDecoder.Listener {
        final List<String> malformed = new ArrayList<>();
        final Map<Long, Long> lostCounterTracks = new HashMap<>();
        final Map<Long, Long> lostCounters = new HashMap<>();
        final Map<Long, Integer> processes = new HashMap<>();
        long slices;

        @Override
        public void track(TrackDescriptor d) {
            if (d.hasProcess()) {
                processes.put(d.getUuid(), d.getProcess().getPid());
            }
            if (d.hasCounter() && TrackEventDataSource.LOST_EVENTS_TRACK.equals(d.getName())) {
                lostCounterTracks.put(d.getUuid(), d.getParentUuid());
            }
        }

        @Override
        public void slice(long track, String name, List<String> categories, long begin, long end) {
            if (!categories.equals(List.of(FloodWorkload.CATEGORY))
                    || !name.matches("slice-[0-" + (FloodWorkload.NAMES - 1) + "]")) {
                if (malformed.size() < 20) {
                    malformed.add(name + " " + categories + " on track " + track);
                }
                return;
            }
            slices++;
        }

        @Override
        public void counter(long track, double value, long timestamp) {
            Long process = lostCounterTracks.get(track);
            if (process != null) {
                long pid = processes.getOrDefault(process, -1);
                if (lostCounters.put(pid, (long) value) != null) {
                    malformed.add("a second lost-events sample for pid " + pid);
                }
            }
        }
    }
}
