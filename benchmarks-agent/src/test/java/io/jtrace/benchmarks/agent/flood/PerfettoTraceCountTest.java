package io.jtrace.benchmarks.agent.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PerfettoTraceCountTest {
    @TempDir
    Path dir;

    private static TracePacket event(int sequence, TrackEvent.Type type, int flags) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(sequence).setSequenceFlags(flags)
                .setTimestamp(5).setTrackEvent(TrackEvent.newBuilder().setType(type).setNameIid(1)).build();
    }

    @Test
    void countsTheFloodsDecodableSlicesTheLostCounterAndWhatTraceProcessorWouldSkip() throws Exception {
        long lostTrack = -5_901_796_794_567_903_832L; // a uint64 uuid above 2^63
        Trace trace = Trace.newBuilder()
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2)
                        .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(lostTrack).setName("jtrace: lost track events")))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(1)
                        .setInternedData(InternedData.newBuilder()
                                .addEventCategories(EventCategory.newBuilder().setIid(1).setName("flood"))
                                .addEventCategories(EventCategory.newBuilder().setIid(2).setName("other"))))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_END, 2))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2).toBuilder().setPreviousPacketDropped(1))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_END, 2))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(1))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2))
                .addPacket(event(4, TrackEvent.Type.TYPE_SLICE_END, 2)) // a sequence never cleared
                // Another data source's slices (say the GC's): decodable, but not the flood's.
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(5).setSequenceFlags(1))
                .addPacket(event(5, TrackEvent.Type.TYPE_SLICE_BEGIN, 2))
                .addPacket(event(5, TrackEvent.Type.TYPE_SLICE_END, 2))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2)
                        .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_COUNTER)
                                .setTrackUuid(lostTrack).setCounterValue(1234)))
                .build();
        Path file = dir.resolve("t.pftrace");
        Files.write(file, trace.toByteArray());

        PerfettoTraceCount count = PerfettoTraceCount.of(file, "flood", 0, Long.MAX_VALUE);

        assertEquals(new PerfettoTraceCount(2, 1, 2, 1234, 1, 3), count);
    }

    @Test
    void countsTheBeginsWithinTheWindowOnTheSequencesIncrementalClockAndOnMonotonic() throws Exception {
        Trace trace = Trace.newBuilder()
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(1)
                        .setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64))
                        .setClockSnapshot(ClockSnapshot.newBuilder()
                                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(3).setTimestamp(1000))
                                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(64).setTimestamp(1000).setIsIncremental(true))))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(2)
                        .setInternedData(InternedData.newBuilder()
                                .addEventCategories(EventCategory.newBuilder().setIid(1).setName("flood"))))
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2), 50))  // 1050: before
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_END, 2), 60))    // 1110
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2), 40))  // 1150: in
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_END, 2), 100))   // 1250
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2), 1190).toBuilder()
                        .setTimestampClockId(3).build())                                // 1190 on MONOTONIC: in, clock unchanged
                .addPacket(timed(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 2), 50))  // 1300: at the end, out
                .build();
        Path file = dir.resolve("t.pftrace");
        Files.write(file, trace.toByteArray());

        PerfettoTraceCount count = PerfettoTraceCount.of(file, "flood", 1100, 1300);

        assertEquals(4, count.begins());
        assertEquals(2, count.beginsInWindow());
    }

    private static TracePacket timed(TracePacket p, long timestamp) {
        return p.toBuilder().setTimestamp(timestamp).build();
    }
}
