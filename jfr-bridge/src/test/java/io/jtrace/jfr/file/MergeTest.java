package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.ProcessDescriptor;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.service.output.TraceFileWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code merge}: a recording's events join a jtrace trace of the same JVM on its thread tracks and its
 * timeline (the trace's clock snapshot maps wall-clock to MONOTONIC), and the trace's own packets stay.
 */
class MergeTest {
    private static final long PROCESS_UUID = 4242;
    private static final long REALTIME_MINUS_MONOTONIC = 1_700_000_000_000_000_000L - 5_000_000_000L;
    private static final int TRACE_SEQUENCE = 7;

    @TempDir
    static Path dir;
    static Path recording;
    static GroundTruth truth;
    static Map<Long, Long> workerUuids = new HashMap<>();

    @BeforeAll
    static void record() throws Exception {
        recording = TestRecordings.record(dir.resolve("rec.jfr"), 2, 30);
        truth = GroundTruth.of(recording);
        long next = 9000;
        for (RecordedEvent e : truth.events) {
            if (e.getEventType().getName().equals("jtrace.test.Work") && !workerUuids.containsKey(e.getThread().getOSThreadId())) {
                workerUuids.put(e.getThread().getOSThreadId(), next++);
            }
        }
    }

    /** A trace like the agent's: a process, thread tracks of the workers (their OS tids), a clock snapshot. */
    private static Path jtraceTrace(String name, int pid) throws Exception {
        Path file = dir.resolve(name);
        List<TracePacket> packets = new ArrayList<>();
        packets.add(TracePacket.newBuilder().setTrustedPacketSequenceId(1).setClockSnapshot(ClockSnapshot.newBuilder()
                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE).setTimestamp(5_000_000_000L))
                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE)
                        .setTimestamp(5_000_000_000L + REALTIME_MINUS_MONOTONIC))).build());
        packets.add(TracePacket.newBuilder().setTrustedPacketSequenceId(TRACE_SEQUENCE).setTrackDescriptor(TrackDescriptor.newBuilder()
                .setUuid(PROCESS_UUID).setProcess(ProcessDescriptor.newBuilder().setPid(pid).setProcessName("app"))).build());
        for (Map.Entry<Long, Long> w : workerUuids.entrySet()) {
            packets.add(TracePacket.newBuilder().setTrustedPacketSequenceId(TRACE_SEQUENCE).setTrackDescriptor(TrackDescriptor.newBuilder()
                    .setUuid(w.getValue()).setThread(ThreadDescriptor.newBuilder().setPid(pid).setTid(w.getKey()).setThreadName("worker")))
                    .build());
        }
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            for (TracePacket p : packets) {
                byte[] body = p.toByteArray();
                writer.packet(body, 0, body.length, new byte[0], 0);
            }
        }
        return file;
    }

    @Test
    void aRecordingThatDoesNotTellItsPidGoesToTheTracesOnlyProcessAndTheReportSaysSo() throws Exception {
        Path anonymous = TestRecordings.record(dir.resolve("anonymous.jfr"), 1, 5, r -> { });
        int pid = 31337;
        Path out = dir.resolve("anonymous-merged.pftrace");
        ConversionReport report = new JfrToTrace(false, null).merge(jtraceTrace("other.pftrace", pid), anonymous, out);
        assertEquals(List.of(anonymous + ": the recording does not tell its JVM's pid (no jdk.JVMInformation event); its"
                + " events went to the trace's only process, pid " + pid), report.notes());
        DecodedTrace merged = DecodedTrace.read(out);
        assertEquals(List.of(), merged.problems);
        merged.tracks.values().stream().filter(TrackDescriptor::hasThread)
                .forEach(d -> assertEquals(pid, d.getThread().getPid()));
    }

    @Test
    void recordingEventsLandOnTheTracesThreadTracksOnItsMonotonicTimeline() throws Exception {
        int pid = (int) ProcessHandle.current().pid();
        Path out = dir.resolve("merged.pftrace");
        ConversionReport report = new JfrToTrace(false, null).merge(jtraceTrace("app.pftrace", pid), recording, out);
        assertEquals(truth.countPerType, report.eventsPerType());

        DecodedTrace merged = DecodedTrace.read(out);
        assertEquals(List.of(), merged.problems);
        // The trace's own descriptors are there and were not written twice.
        long processDescriptors = merged.tracks.values().stream().filter(TrackDescriptor::hasProcess).count();
        assertEquals(1, processDescriptors);

        List<String> expected = new ArrayList<>();
        for (RecordedEvent e : truth.events) {
            if (e.getEventType().getName().equals("jtrace.test.Work")) {
                long start = GroundTruth.expectedTimestamp(e.getStartTime(), REALTIME_MINUS_MONOTONIC);
                expected.add(workerUuids.get(e.getThread().getOSThreadId()) + "|" + start + "|" + (start + e.getDuration().toNanos()));
            }
        }
        List<String> actual = new ArrayList<>();
        for (DecodedTrace.Slice s : merged.slices) {
            if (s.name().equals("jtrace.test.Work")) {
                actual.add(s.track() + "|" + s.start() + "|" + s.end());
                assertTrue(s.sequence() > TRACE_SEQUENCE, "the recording's sequences come after the trace's");
            }
        }
        assertEquals(GroundTruth.multiset(expected), GroundTruth.multiset(actual));
        merged.clockOfSequence.forEach((seq, clock) -> assertEquals(BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE, clock));
        // Threads the trace did not know (JFR's own, the test runner's) get tracks of their own under the same pid.
        merged.tracks.values().stream().filter(TrackDescriptor::hasThread)
                .forEach(d -> assertEquals(pid, d.getThread().getPid()));
    }

    @Test
    void recordingOfAnotherJvmIsRefused() throws Exception {
        Path trace = jtraceTrace("other.pftrace", 1);
        Path out = dir.resolve("other-merged.pftrace");
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).merge(trace, recording, out));
        assertTrue(e.getMessage().contains("recorded in pid " + ProcessHandle.current().pid()), e.getMessage());
        assertTrue(e.getMessage().contains("not the same JVM"), e.getMessage());
        assertFalse(Files.exists(out));
    }

    @Test
    void aTraceWhoseLastPacketIsCutOffIsRefusedNamingTheDamageAndNothingIsWritten() throws Exception {
        byte[] whole = Files.readAllBytes(jtraceTrace("whole.pftrace", (int) ProcessHandle.current().pid()));
        Path cut = Files.write(dir.resolve("cut.pftrace"), Arrays.copyOf(whole, whole.length - 2));
        Path out = dir.resolve("cut-merged.pftrace");
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).merge(cut, recording, out));
        assertTrue(e.getMessage().startsWith(cut + ": not a whole Perfetto trace, damaged at byte "), e.getMessage());
        assertTrue(e.getMessage().contains("the last packet is cut off"), e.getMessage());
        assertFalse(Files.exists(out));
    }

    @Test
    void aFileThatIsNoTraceIsRefusedNamingIt() throws Exception {
        Path notes = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        Path out = dir.resolve("notes-merged.pftrace");
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).merge(notes, recording, out));
        assertTrue(e.getMessage().startsWith(notes + " is not a Perfetto trace"), e.getMessage());
        assertFalse(Files.exists(out));
    }

    @Test
    void traceWithoutAClockSnapshotIsRefusedBecauseItsTimelineIsUnknown() throws Exception {
        Path trace = dir.resolve("noclock.pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(trace)) {
            byte[] body = TracePacket.newBuilder().setTrustedPacketSequenceId(3).setTrackDescriptor(TrackDescriptor.newBuilder()
                    .setUuid(PROCESS_UUID).setProcess(ProcessDescriptor.newBuilder().setPid((int) ProcessHandle.current().pid())))
                    .build().toByteArray();
            writer.packet(body, 0, body.length, new byte[0], 0);
        }
        JfrInputException e = assertThrows(JfrInputException.class,
                () -> new JfrToTrace(false, null).merge(trace, recording, dir.resolve("noclock-merged.pftrace")));
        assertTrue(e.getMessage().startsWith(trace + ": no clock snapshot"), e.getMessage());
    }
}
