package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code convert}: every event the JDK's parser reads from a recording is in the trace, by type, on its
 * thread, at its time, and the trace has nothing trace_processor would reject.
 */
class JfrToTraceTest {
    @TempDir
    static Path dir;
    static Path recording;
    static GroundTruth truth;
    static DecodedTrace trace;
    static ConversionReport report;
    /** A converted trace keeps JFR's times as REALTIME: no offset. */
    static final long REALTIME = 0;

    @BeforeAll
    static void convertARecording() throws Exception {
        recording = TestRecordings.record(dir.resolve("rec.jfr"), 3, 100);
        truth = GroundTruth.of(recording);
        Path out = dir.resolve("rec.pftrace");
        report = new JfrToTrace(false, null).convert(recording, out);
        trace = DecodedTrace.read(out);
    }

    @Test
    void traceHasNothingTraceProcessorWouldReject() {
        assertEquals(List.of(), trace.problems);
        assertTrue(trace.packets > truth.events.size(), "at least a packet per event");
    }

    @Test
    void reportCountsEveryEventOfEveryTypeTheJdkParserReads() {
        assertEquals(truth.countPerType, report.eventsPerType());
        assertEquals(truth.events.size(), report.eventsWritten());
        assertFalse(report.lostSomething());
    }

    @Test
    void everyNonSampleNonCounterEventIsASliceOrInstantOfItsTypeOnItsThreadAtItsTime() {
        Set<String> counterTypes = counterTypes();
        List<String> expected = new ArrayList<>();
        for (RecordedEvent e : truth.events) {
            String type = e.getEventType().getName();
            if (GroundTruth.isSample(e) || counterTypes.contains(type)) {
                continue;
            }
            long start = GroundTruth.expectedTimestamp(e.getStartTime(), REALTIME);
            long dur = e.getEventType().getField("duration") == null ? 0 : e.getDuration().toNanos();
            expected.add(type + "|" + start + "|" + (start + Math.max(0, dur)) + "|" + GroundTruth.tid(e.getThread()));
        }
        List<String> actual = new ArrayList<>();
        for (DecodedTrace.Slice s : trace.slices) {
            actual.add(s.name() + "|" + s.start() + "|" + s.end() + "|" + trace.tidOf(s.track()));
        }
        for (DecodedTrace.Instant i : trace.instants) {
            actual.add(i.name() + "|" + i.ts() + "|" + i.ts() + "|" + trace.tidOf(i.track()));
        }
        assertEquals(GroundTruth.multiset(expected), GroundTruth.multiset(actual));
    }

    @Test
    void applicationEventsAreSlicesAndInstantsWithTheirFieldsOnTheWorkersTracks() {
        long work = truth.countPerType.get("jtrace.test.Work");
        assertEquals(3 * 100 * 2, work);
        List<DecodedTrace.Slice> slices = trace.slices.stream().filter(s -> s.name().equals("jtrace.test.Work")).toList();
        assertEquals(work, slices.size());
        for (DecodedTrace.Slice s : slices) {
            assertTrue(trace.trackName(s.track()).startsWith("jfr-worker-"), trace.trackName(s.track()));
            assertTrue(s.args().containsKey("item") && s.args().containsKey("what"), s.args().toString());
            assertTrue(s.callstack() != 0, "the event's stack trace is its callstack");
        }
        // Inner slices (3 ms) nest inside outer ones (5 ms) on the same track.
        long inner = slices.stream().filter(s -> s.args().get("what").getStringValue().equals("inner")).count();
        assertEquals(work / 2, inner);
        List<DecodedTrace.Instant> markers = trace.instants.stream().filter(i -> i.name().equals("jtrace.test.Marker")).toList();
        assertEquals((long) truth.countPerType.get("jtrace.test.Marker"), markers.size());
        assertTrue(markers.stream().allMatch(m -> m.args().containsKey("value")));
    }

    @Test
    void periodicNumericEventsAreCounterTracksWithTheRecordedValues() {
        assertTrue(counterTypes().containsAll(Set.of("jdk.CPULoad", "jdk.JavaThreadStatistics")), counterTypes().toString());
        Map<Long, List<String>> valuesPerTrack = new HashMap<>();
        for (DecodedTrace.Counter c : trace.counters) {
            valuesPerTrack.computeIfAbsent(c.track(), k -> new ArrayList<>()).add(c.ts() + "=" + c.value());
        }
        int checked = 0;
        for (Map.Entry<Long, List<String>> e : valuesPerTrack.entrySet()) {
            String name = trace.trackName(e.getKey());
            for (String type : counterTypes()) {
                if (!name.startsWith(type + ".") || name.indexOf(' ') >= 0) {
                    continue;
                }
                String field = name.substring(type.length() + 1);
                List<String> expected = new ArrayList<>();
                for (RecordedEvent ev : truth.events) {
                    if (ev.getEventType().getName().equals(type) && !field.contains(".")) {
                        expected.add(GroundTruth.expectedTimestamp(ev.getStartTime(), REALTIME) + "=" + ((Number) ev.getValue(field)).doubleValue());
                    }
                }
                if (!field.contains(".")) {
                    assertEquals(GroundTruth.multiset(expected), GroundTruth.multiset(e.getValue()), name);
                    checked++;
                }
            }
        }
        assertTrue(checked >= 4, "checked " + checked + " counter tracks");
    }

    @Test
    void everyExecutionSampleIsOneCallstackSampleOnItsThreadWithTheSameTopFrames() {
        List<String> expected = new ArrayList<>();
        Map<String, List<String>> expectedPerType = new HashMap<>();
        for (RecordedEvent e : truth.events) {
            if (GroundTruth.isSample(e)) {
                String key = GroundTruth.sampleKey(e, REALTIME);
                expected.add(key);
                expectedPerType.computeIfAbsent(e.getEventType().getName(), k -> new ArrayList<>()).add(key);
            }
        }
        long sampled = truth.countPerType.getOrDefault("jdk.ExecutionSample", 0L);
        assertTrue(sampled >= 10, "the workers were sampled " + sampled + " times");
        List<String> actual = new ArrayList<>();
        Map<Integer, List<String>> actualPerSequence = new HashMap<>();
        for (DecodedTrace.Sample s : trace.samples) {
            actual.add(GroundTruth.sampleKey(s));
            actualPerSequence.computeIfAbsent(s.sequence(), k -> new ArrayList<>()).add(GroundTruth.sampleKey(s));
            assertEquals(ProcessHandle.current().pid(), s.pid());
        }
        assertEquals(GroundTruth.multiset(expected), GroundTruth.multiset(actual));
        // One sequence per sample type, so the types stay apart.
        assertEquals(expectedPerType.size(), actualPerSequence.size());
        for (List<String> one : actualPerSequence.values()) {
            assertTrue(expectedPerType.values().stream().anyMatch(t -> GroundTruth.multiset(t).equals(GroundTruth.multiset(one))));
        }
        // Samples of the workers name their thread tracks.
        Set<String> sampledWorkers = new TreeSet<>();
        for (DecodedTrace.Sample s : trace.samples) {
            for (TrackDescriptor d : trace.tracks.values()) {
                if (d.hasThread() && d.getThread().getTid() == s.tid() && d.getThread().getThreadName().startsWith("jfr-worker-")) {
                    sampledWorkers.add(d.getThread().getThreadName());
                }
            }
        }
        assertFalse(sampledWorkers.isEmpty());
    }

    @Test
    void convertedTraceIsOnRealtimeDeclaredAsTheTraceClock() {
        assertEquals(1, trace.clockSnapshots.size());
        assertEquals(BuiltinClock.BUILTIN_CLOCK_REALTIME, trace.clockSnapshots.get(0).getClockSnapshot().getPrimaryTraceClock());
        assertFalse(trace.clockOfSequence.isEmpty());
        trace.clockOfSequence.values().forEach(c -> assertEquals(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE, c));
    }

    @Test
    void threadTracksCarryThePidAndTheRecordedThreadNames() {
        long pid = ProcessHandle.current().pid();
        Map<Long, String> names = new HashMap<>();
        for (TrackDescriptor d : trace.tracks.values()) {
            if (d.hasThread()) {
                assertEquals(pid, d.getThread().getPid());
                names.put(d.getThread().getTid(), d.getThread().getThreadName());
            }
        }
        for (RecordedEvent e : truth.events) {
            if (e.getEventType().getName().equals("jtrace.test.Work")) {
                assertEquals(e.getThread().getJavaName(), names.get(e.getThread().getOSThreadId()));
            }
        }
        assertNotNull(trace.tracks.values().stream().filter(TrackDescriptor::hasProcess).findFirst().orElse(null));
    }

    private static Set<String> counterTypes() {
        Set<String> types = new TreeSet<>();
        for (TrackDescriptor d : trace.tracks.values()) {
            if (d.hasCounter()) {
                for (String type : truth.countPerType.keySet()) {
                    if (d.getName().startsWith(type + ".")) {
                        types.add(type);
                    }
                }
            }
        }
        return types;
    }
}
