package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.VirtualThreadsJfrWorkload;
import io.jtrace.protos.TrackDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JFR events of virtual threads (JFR records them on JDK 21+, so this runs the child on JDK 25 only),
 * live through {@code jvm.jfr} and converted from a {@code .jfr} file: every event a virtual thread
 * emitted is in the trace on that thread's track, {@code "<thread name> #<java thread id>"} or
 * {@code "virtual thread #<java thread id>"} for an unnamed one, a track under the process (a virtual
 * thread has no OS thread), as many per track as the JDK's own parser reads from a recording made
 * beside. Live, the thread's API slices ({@code TrackEvent}) are on that same track: the agent and
 * {@code jvm.jfr} give a virtual thread one track.
 */
class JfrVirtualThreadsTest {
    private static final int THREADS = 40;
    private static final int STEPS = 4;
    private static final Set<String> JFR_TYPES = Set.of("it.VirtualStep", "jdk.ThreadSleep");

    @TempDir
    Path dir;

    @Test
    void jfrEventsOfVirtualThreadsAreOnTheirVirtualThreadTracksLiveAndConverted() throws Exception {
        Path trace = dir.resolve("live.pftrace");
        Path beside = dir.resolve("beside.jfr");
        Path java = ChildJvm.java("jtrace.jdk25");
        List<String> flags = new ArrayList<>(ChildJvm.DEFAULT_JVM_FLAGS);
        flags.add("-XX:StartFlightRecording=filename=" + beside + ",settings=default");
        ChildJvm.Result result = ChildJvm.runTraced(java,
                "start,file=" + trace + ",sources=track_event+jvm.jfr,jfr=it.VirtualStep+jdk.ThreadSleep#threshold=20 ms",
                trace, dir, flags, ChildJvm.DEFAULT_TIMEOUT, VirtualThreadsJfrWorkload.class.getName(),
                String.valueOf(THREADS), String.valueOf(STEPS));
        assertTrue(result.stdout().contains("VIRTUAL=" + THREADS), result.stdout());
        assertTrue(result.stderr().lines().noneMatch(l -> l.contains("jtrace")), result.stderr());

        Map<String, Long> truth = virtualThreadEventsPerTrack(beside);
        assertEquals(THREADS * STEPS, countOfType(truth, "it.VirtualStep"),
                "the recording beside has every it.VirtualStep, each on a virtual thread: " + truth);
        assertEquals(THREADS * STEPS, countOfType(truth, "jdk.ThreadSleep"),
                "JDK 25 records each virtual thread's 25 ms sleep: " + truth);
        assertEquals(THREADS / 2, truth.keySet().stream().filter(k -> k.startsWith("it.VirtualStep|virtual thread #")).count(),
                "half the threads are unnamed: " + truth.keySet());

        TraceModel live = TraceModel.read(trace);
        assertEquals(List.of(), live.problems);
        assertEquals(truth, jfrEventsPerVirtualThreadTrack(live), "live jvm.jfr");
        apiSlicesShareEachVirtualThreadsTrack(live);

        Path converted = dir.resolve("converted.pftrace");
        Process convert = new ProcessBuilder(java.toString(), "-jar", ChildJvm.agentJar().toAbsolutePath().toString(),
                "convert", beside.toString(), "-o", converted.toString())
                .redirectErrorStream(true).start();
        assertTrue(convert.waitFor(120, TimeUnit.SECONDS), "convert finished");
        String output = new String(convert.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, convert.exitValue(), output);
        TraceModel file = TraceModel.read(converted);
        assertEquals(List.of(), file.problems);
        assertEquals(truth, jfrEventsPerVirtualThreadTrack(file), "jtrace convert");
    }

    /**
     * Ground truth: per {@code "<type>|<track name>"}, the events of {@link #JFR_TYPES} the JDK's parser
     * reads from the recording whose thread is virtual (the recording's own {@code virtual} field).
     */
    private static Map<String, Long> virtualThreadEventsPerTrack(Path jfr) throws Exception {
        Map<String, Long> perTrack = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            RecordedThread t = e.getThread();
            if (!JFR_TYPES.contains(e.getEventType().getName()) || t == null || !t.hasField("virtual")
                    || !t.getBoolean("virtual")) {
                continue;
            }
            String name = t.getJavaName() == null || t.getJavaName().isEmpty() ? "virtual thread" : t.getJavaName();
            perTrack.merge(e.getEventType().getName() + "|" + name + " #" + t.getJavaThreadId(), 1L, Long::sum);
        }
        return perTrack;
    }

    private static long countOfType(Map<String, Long> perTrack, String type) {
        return perTrack.entrySet().stream().filter(e -> e.getKey().startsWith(type + "|")).mapToLong(Map.Entry::getValue).sum();
    }

    /**
     * The trace's slices of {@link #JFR_TYPES} on virtual-thread tracks, per {@code "<type>|<track name>"};
     * fails on one that is on any other track, or on a virtual-thread track that is not a named track
     * directly under a process.
     */
    private static Map<String, Long> jfrEventsPerVirtualThreadTrack(TraceModel model) {
        Set<Long> processes = new HashSet<>();
        model.tracks.values().stream().filter(TrackDescriptor::hasProcess).forEach(d -> processes.add(d.getUuid()));
        Map<String, Long> perTrack = new TreeMap<>();
        for (TraceModel.SliceRecord s : model.slices) {
            if (!JFR_TYPES.contains(s.name())) {
                continue;
            }
            TrackDescriptor d = model.tracks.get(s.track());
            if (d == null || d.hasThread()) {
                continue; // a platform thread's event (JFR's own threads sleep too)
            }
            assertTrue(d.getName().matches("(vt-\\d+|virtual thread) #\\d+"), "a virtual thread's track name: " + d);
            assertTrue(processes.contains(d.getParentUuid()), "a virtual thread's track is under its process: " + d);
            perTrack.merge(s.name() + "|" + d.getName(), 1L, Long::sum);
        }
        return perTrack;
    }

    /** Each virtual thread's API slices are on the track its JFR events are on, and nowhere else. */
    private static void apiSlicesShareEachVirtualThreadsTrack(TraceModel model) {
        Map<Long, Integer> apiPerTrack = new HashMap<>();
        for (TraceModel.SliceRecord s : model.slicesNamed("api-vstep")) {
            apiPerTrack.merge(s.track(), 1, Integer::sum);
        }
        Map<Long, Integer> jfrPerTrack = new HashMap<>();
        for (TraceModel.SliceRecord s : model.slicesNamed("it.VirtualStep")) {
            jfrPerTrack.merge(s.track(), 1, Integer::sum);
        }
        assertEquals(THREADS, apiPerTrack.size(), "one track per virtual thread for its API slices");
        assertEquals(jfrPerTrack, apiPerTrack, "the API slices and the JFR events of a virtual thread share its track");
        for (long track : apiPerTrack.keySet()) {
            TrackDescriptor d = model.tracks.get(track);
            assertFalse(d.hasThread(), "a virtual thread's track has no OS thread: " + d);
            assertEquals(STEPS, apiPerTrack.get(track), d.getName());
        }
    }
}
