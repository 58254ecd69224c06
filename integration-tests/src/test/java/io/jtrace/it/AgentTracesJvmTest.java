package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.AppWorkload;
import io.jtrace.it.workload.OutlivesItsSession;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole product end to end: a child JVM (JDK 17 and JDK 25) started with
 * {@code -javaagent:jtrace.jar=start,...} runs {@link AppWorkload}; the trace file it leaves must hold
 * everything the workload did.
 */
class AgentTracesJvmTest {
    private static final int THREADS = 4;
    private static final int SLICES_PER_THREAD = 300;
    private static final int EXPLICIT_GCS = 3;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void traceHoldsEveryAppSliceNamedThreadTracksAndEveryGc(String jdk) throws Exception {
        Path trace = dir.resolve("app.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,file=" + trace, trace, dir,
                ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT, AppWorkload.class.getName(),
                String.valueOf(THREADS), String.valueOf(SLICES_PER_THREAD), String.valueOf(EXPLICIT_GCS));
        assertEquals("", result.stderr(), "a traced JVM's stderr holds nothing from the agent (JDK 25: no sun.misc.Unsafe warnings)");
        Map<String, Long> reported = result.report();
        assertEquals(Set.of("SLICES", "GCS"), reported.keySet(),
                () -> "the agent must not print to stdout; child stdout was: " + result.stdout());
        assertTrue(Files.size(trace) > 0, "trace file is empty");

        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);
        assertEquals(0, model.packetsWithoutSequenceId, "every packet carries trusted_packet_sequence_id");

        // Thread tracks: one per worker, named, with this child's pid and a real (OS) tid.
        Map<String, TrackDescriptor> threadTracks = new HashMap<>();
        for (TrackDescriptor d : model.tracks.values()) {
            if (d.hasThread()) {
                threadTracks.put(d.getThread().getThreadName(), d);
            }
        }
        for (int i = 0; i < THREADS; i++) {
            TrackDescriptor d = threadTracks.get("app-worker-" + i);
            assertTrue(d != null, "no named thread track for app-worker-" + i + "; got " + threadTracks.keySet());
            assertTrue(d.getThread().getTid() > 0 && d.getThread().getPid() > 0);
        }

        // Every app slice, begin and end, on its own thread's track.
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < THREADS; i++) {
            for (int j = 0; j < SLICES_PER_THREAD; j++) {
                expected.add("work-" + i + "-" + j);
            }
        }
        Map<String, Long> workSlices = model.slices.stream()
                .filter(s -> s.name() != null && s.name().startsWith("work-"))
                .collect(Collectors.groupingBy(TraceModel.SliceRecord::name, Collectors.counting()));
        assertEquals(expected, workSlices.keySet(), "missing or extra app slices");
        assertTrue(workSlices.values().stream().allMatch(n -> n == 1), "an app slice appears twice");
        assertEquals(reported.get("SLICES"), (long) workSlices.size());
        long inner = model.slices.stream().filter(s -> "inner".equals(s.name())).count();
        assertEquals((long) THREADS * SLICES_PER_THREAD, inner, "nested 'inner' slices");
        for (TraceModel.SliceRecord s : model.slices) {
            if (s.name() != null && s.name().startsWith("work-")) {
                String worker = "app-worker-" + s.name().split("-")[1];
                assertEquals(threadTracks.get(worker).getUuid(), s.track(), s.name() + " is on the wrong track");
                assertEquals(List.of("app"), s.categories());
            }
        }
        assertEquals((long) THREADS * SLICES_PER_THREAD, model.countersOnTracksNamed("progress-").size(), "counter samples");
        // The agent's own loss counter says, in the trace itself, that no track event was lost.
        assertEquals(List.of(0.0), model.countersOnTracksNamed(TrackEventDataSource.LOST_EVENTS_TRACK).stream()
                .map(TraceModel.CounterSample::value).toList(), "lost track events counter");

        // GC: at least as many GC slices as the child's own GarbageCollectorMXBeans counted.
        long gcSlices = model.slicesOnTracksNamed("GC: ").size();
        assertTrue(reported.get("GCS") >= EXPLICIT_GCS, () -> "the workload's collections: " + reported);
        assertTrue(gcSlices >= reported.get("GCS"),
                "GC slices " + gcSlices + " < collections counted by the child " + reported.get("GCS"));
        // Each GC also moves the heap counter (before at its start, after at its end) and names every
        // pool's bytes before and after; GC tracks sit under the process.
        // The counter holds, at each GC's end, the heap its slice says was used after it (and at its start
        // the heap used before, when the GC took at least the milliseconds GcInfo counts in). It is written
        // only when its value changes, so back-to-back GCs that freed nothing add no sample: the check is
        // per GC, not a count of samples.
        List<TraceModel.CounterSample> heap = model.countersOnTracksNamed("heap used at GC").stream()
                .sorted(java.util.Comparator.comparingLong(TraceModel.CounterSample::timestamp)).toList();
        assertFalse(heap.isEmpty(), "heap counter");
        int gcChecked = 0;
        for (TraceModel.EventRecord e : model.events) {
            if (e.event().getCategoriesList().contains("gc") && e.event().getType() == TrackEvent.Type.TYPE_SLICE_BEGIN) {
                Map<String, Long> args = e.event().getDebugAnnotationsList().stream()
                        .collect(Collectors.toMap(DebugAnnotation::getName, DebugAnnotation::getIntValue, (x, y) -> x));
                long end = e.timestamp() + args.get("duration_ms") * 1_000_000L;
                assertTrue(heapHolds(heap, end, args.get("heap_used_after")),
                        () -> "heap counter at the end of a GC: " + args + " " + heap);
                if (args.get("duration_ms") > 0) {
                    assertTrue(heapHolds(heap, e.timestamp(), args.get("heap_used_before")),
                            () -> "heap counter at a GC's start: " + args + " " + heap);
                }
                gcChecked++;
            }
        }
        assertTrue(gcChecked >= reported.get("GCS"), "every GC checked");
        TrackEvent gcBegin = model.packets.stream().filter(p -> p.hasTrackEvent() && p.getTrackEvent().getCategoriesList().contains("gc"))
                .map(TracePacket::getTrackEvent).findFirst().orElseThrow();
        Set<String> annotations = gcBegin.getDebugAnnotationsList().stream().map(DebugAnnotation::getName).collect(Collectors.toSet());
        assertTrue(annotations.containsAll(Set.of("cause", "gc_id", "heap_used_before", "heap_used_after")), annotations::toString);
        assertTrue(annotations.stream().anyMatch(a -> a.endsWith(" before")) && annotations.stream().anyMatch(a -> a.endsWith(" after")),
                () -> "per-pool annotations: " + annotations);
        TrackDescriptor process = model.packets.stream().filter(p -> p.hasTrackDescriptor() && p.getTrackDescriptor().hasProcess())
                .map(TracePacket::getTrackDescriptor).filter(d -> d.getProcess().getCmdlineCount() > 0).findFirst()
                .orElseThrow(() -> new AssertionError("no process descriptor with a command line"));
        assertTrue(model.tracks.values().stream().filter(d -> d.getName().startsWith("GC: "))
                .allMatch(d -> d.getParentUuid() == process.getUuid()), "GC tracks under the process");
        assertEquals(result.pid(), process.getProcess().getPid());
        assertEquals(AppWorkload.class.getName(), process.getProcess().getProcessName());
        assertTrue(process.getProcess().getCmdlineList().contains(AppWorkload.class.getName()), process.toString());
        assertTrue(process.getProcess().getProcessLabelsList().stream().anyMatch(l -> l.startsWith("jvm: ")
                && l.contains(System.getProperty("java.vm.name").split(" ")[0])), process.toString());

        // Clocks: a snapshot relating MONOTONIC to BOOTTIME and REALTIME comes before any timestamped event.
        assertTrue(model.firstClockSnapshot >= 0 && model.firstClockSnapshot < model.firstTimestampedTrackEvent);
        ClockSnapshot snapshot = model.packets.get(model.firstClockSnapshot).getClockSnapshot();
        Set<Integer> clocks = snapshot.getClocksList().stream().map(ClockSnapshot.Clock::getClockId).collect(Collectors.toSet());
        assertEquals(Set.of(1, 3, 6), clocks);
        // A streamed trace says how often it was flushed: trace_processor flags one that does not
        // (config_write_into_file_no_flush).
        TracePacket config = model.packets.stream().filter(TracePacket::hasTraceConfig).findFirst().orElseThrow();
        assertTrue(config.getTraceConfig().getWriteIntoFile() && config.getTraceConfig().getFlushPeriodMs() > 0,
                config.getTraceConfig().toString());
        TracePacket stats = model.packets.get(model.packets.size() - 1);
        assertTrue(stats.hasTraceStats(), "the trace ends with trace stats");
        assertEquals(0, stats.getTraceStats().getBufferStats(0).getAbiViolations());
    }

    /**
     * Whether the heap counter holds {@code value} at {@code t}: a sample at {@code t} has it (GCs of two
     * collectors can share a millisecond, and their notifications come in any order), or the last one
     * before {@code t} does (a value is written only when it changes).
     */
    private static boolean heapHolds(List<TraceModel.CounterSample> heap, long t, long value) {
        double before = Double.NaN;
        for (TraceModel.CounterSample s : heap) {
            if (s.timestamp() == t && s.value() == value) {
                return true;
            }
            if (s.timestamp() < t) {
                before = s.value();
            }
        }
        return before == value;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void theFirstSessionIsPrecededByAPipelineWarmUpThatLeavesNothingBehind(String jdk) throws Exception {
        Path trace = dir.resolve("warm.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,log=debug,file=" + trace, trace, dir,
                ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT, AppWorkload.class.getName(), "2", "20", "0");
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stderr().contains("pipeline warmed up in"), result.stderr());
        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);
        assertEquals(40, model.slices.stream().filter(s -> s.name() != null && s.name().startsWith("work-")).count());
        assertTrue(model.slices.stream().noneMatch(s -> s.categories().stream().anyMatch(c -> c.contains("jtrace.warmup"))
                || (s.name() != null && s.name().startsWith("warm-up"))), "a warm-up slice in the user's trace");
        try (var files = Files.list(dir)) {
            List<String> left = files.map(f -> f.getFileName().toString()).filter(f -> f.contains("warmup")).toList();
            assertEquals(List.of(), left, "the warm-up's scratch file is deleted");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void unknownOptionIsReportedByNameAndTheApplicationRunsUntraced(String jdk) throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), "start,bogus=1", dir,
                AppWorkload.class.getName(), "1", "5", "0");
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stderr().contains("unknown jtrace option 'bogus'"), result.stderr());
        assertEquals(Set.of("SLICES", "GCS"), result.report().keySet(), result.stdout());
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(f -> f.toString().endsWith(".pftrace")), "no trace without a valid start");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aTraceFileThatCannotBeWrittenIsReportedInOneLineAndTheApplicationRunsUntraced(String jdk) throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), "start,file=/proc/no-such-dir/x.pftrace", dir,
                AppWorkload.class.getName(), "1", "5", "0");
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stderr().contains(
                        "jtrace agent not started: the trace file '/proc/no-such-dir/x.pftrace' (output_path) cannot be"
                                + " written: /proc/no-such-dir does not exist and cannot be made"),
                result.stderr());
        assertFalse(result.stderr().contains("\tat "), "a user's mistake gets a message, not a stack trace: "
                + result.stderr());
        assertEquals(Set.of("SLICES", "GCS"), result.report().keySet(), result.stdout());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void withoutStartTheAgentTracesNothingAndStaysSilent(String jdk) throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), null, dir, AppWorkload.class.getName(), "2", "10", "1");
        assertEquals(0, result.exitCode(), result.stderr());
        assertEquals("", result.stderr());
        assertEquals(Set.of("SLICES", "GCS"), result.report().keySet(), result.stdout());
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(f -> f.toString().endsWith(".pftrace")));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void durationEndsTheSessionAndWritesTheFileWhileTheJvmRuns(String jdk) throws Exception {
        Path trace = dir.resolve("short.pftrace");
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), "start,duration=300ms,file=" + trace, dir,
                SleepingWorkload.class.getName(), trace.toString());
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stdout().contains("FILE_SEEN_BEFORE_EXIT=true"), result.stdout() + result.stderr());
        TraceModel model = TraceModel.read(trace);
        assertTrue(model.slices.stream().anyMatch(s -> "before".equals(s.name())));
        assertTrue(model.slices.stream().noneMatch(s -> "after".equals(s.name())), "slice after the session ended");
    }

    /**
     * A ring session's file is written at its end, through direct memory: with none to be had, the
     * session still ends, says in one line why its trace is missing, leaves no file behind, and the
     * application runs on to its own end.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aRingSessionWithoutMemoryToWriteItsFileEndsSayingWhyAndTheApplicationRunsOn(String jdk) throws Exception {
        Path trace = dir.resolve("no-memory.pftrace");
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), "start,ring,duration=300ms,file=" + trace, dir,
                List.of("-Xmx256m", "-XX:MaxDirectMemorySize=1m"), ChildJvm.DEFAULT_TIMEOUT,
                OutlivesItsSession.class.getName(), "2500");
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stdout().contains("APPLICATION_ENDED=true"), result.stdout() + result.stderr());
        List<String> lines = result.stderr().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), "one line, no stack trace: " + result.stderr());
        assertTrue(lines.get(0).contains("trace " + trace + " is incomplete: writing " + trace
                + " failed: java.lang.OutOfMemoryError"), lines.get(0));
        assertTrue(lines.get(0).contains("direct buffer memory"), lines.get(0));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(Set.of("stdout.txt", "stderr.txt"),
                    files.map(f -> f.getFileName().toString()).collect(Collectors.toSet()), "no trace, no partial file");
        }
    }
}
