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
                // A thread whose first begin was dropped: an end before its sequence interns the category.
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(6).setSequenceFlags(1))
                .addPacket(event(6, TrackEvent.Type.TYPE_SLICE_END, 2))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(6)
                        .setInternedData(InternedData.newBuilder()
                                .addEventCategories(EventCategory.newBuilder().setIid(1).setName("flood"))))
                .addPacket(event(6, TrackEvent.Type.TYPE_SLICE_BEGIN, 2))
                .addPacket(event(6, TrackEvent.Type.TYPE_SLICE_END, 2))
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

        // No sequence here sets a default clock: the timestamps are on the trace clock (BOOTTIME), so
        // none is dated on CLOCK_MONOTONIC, the window's clock.
        assertEquals(new PerfettoTraceCount(3, 3, 0, 1234, 1, 3), count);
    }

    /**
     * jtrace's small events leave NEEDS_INCREMENTAL_STATE to their chunk: after a loss, an unflagged event
     * that uses interned iids or the delta clock is one trace_processor would misread, and counts as
     * undecodable; an event that uses neither does not.
     */
    @Test
    void anUnflaggedEventThatUsesTheSequencesStateAfterALossCountsAsUndecodable() throws Exception {
        TrackEvent.Type begin = TrackEvent.Type.TYPE_SLICE_BEGIN;
        TracePacket plain = TracePacket.newBuilder().setTrustedPacketSequenceId(3).setTimestamp(7).setTimestampClockId(3)
                .setTrackEvent(TrackEvent.newBuilder().setType(begin).setName("plain").setTrackUuid(9)).build();
        Trace trace = Trace.newBuilder()
                .addPacket(header(3, 1000))
                .addPacket(interned(3))
                .addPacket(timed(event(3, begin, 0), 10))
                .addPacket(timed(event(3, begin, 0), 10).toBuilder().setPreviousPacketDropped(1))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setTimestamp(10)
                        .setTrackEvent(TrackEvent.newBuilder().setType(begin).setName("delta")))
                .addPacket(plain)
                .addPacket(header(3, 2000))
                .addPacket(interned(3))
                .addPacket(timed(event(3, begin, 0), 10))
                .build();
        Path file = dir.resolve("t.pftrace");
        Files.write(file, trace.toByteArray());

        PerfettoTraceCount count = PerfettoTraceCount.of(file, "flood", 0, Long.MAX_VALUE);

        assertEquals(3, count.begins(), "two before the loss and after the clear, and the one that uses no state");
        assertEquals(2, count.undecodable(), "the one with the loss, and the one on the delta clock after it");
    }

    @Test
    void datesEachBeginOnItsOwnSequencesIncrementalClockAndCountsThoseWithinTheWindow() throws Exception {
        // Window: [1100, 1300). Sequence 3 checks that ends move the clock, 5 that a packet on
        // CLOCK_MONOTONIC does not, 4 that a second header restarts the clock; interleaved, so one clock
        // shared by all sequences would date them wrongly too.
        TrackEvent.Type begin = TrackEvent.Type.TYPE_SLICE_BEGIN;
        TrackEvent.Type end = TrackEvent.Type.TYPE_SLICE_END;
        Trace trace = Trace.newBuilder()
                .addPacket(header(3, 1000))
                .addPacket(header(5, 1100))
                .addPacket(header(4, 5000))
                .addPacket(interned(3))
                .addPacket(interned(5))
                .addPacket(interned(4))
                .addPacket(timed(event(3, begin, 2), 50))    // 1050: before
                .addPacket(timed(event(5, begin, 2), 20))    // 1120: in
                .addPacket(timed(event(4, begin, 2), 10))    // 5010: after
                .addPacket(timed(event(3, end, 2), 200))     // 1250
                .addPacket(timed(event(5, end, 2), 80))      // 1200
                .addPacket(timed(event(3, begin, 2), 100))   // 1350: after (1150 if ends did not move the clock)
                .addPacket(timed(event(5, begin, 2), 1000).toBuilder().setTimestampClockId(3).build()) // 1000: before
                .addPacket(timed(event(5, begin, 2), 20))    // 1220: in (1020 or 2220 if the last packet moved the clock)
                .addPacket(header(4, 1100))
                .addPacket(interned(4))
                .addPacket(timed(event(4, begin, 2), 50))    // 1150: in (5060 without the restart)
                .build();
        Path file = dir.resolve("t.pftrace");
        Files.write(file, trace.toByteArray());

        PerfettoTraceCount count = PerfettoTraceCount.of(file, "flood", 1100, 1300);

        assertEquals(7, count.begins());
        assertEquals(3, count.beginsInWindow());
    }

    /**
     * A sequence's header as the agent writes it: its clock snapshot sets the incremental clock (the
     * MONOTONIC reading beside it is far off, so a decoder that took it would date every event wrongly).
     */
    private static TracePacket header(int sequence, long base) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(sequence).setSequenceFlags(1)
                .setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64))
                .setClockSnapshot(ClockSnapshot.newBuilder()
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(3).setTimestamp(base + 100_000))
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(64).setTimestamp(base).setIsIncremental(true)))
                .build();
    }

    private static TracePacket interned(int sequence) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(sequence).setSequenceFlags(2)
                .setInternedData(InternedData.newBuilder()
                        .addEventCategories(EventCategory.newBuilder().setIid(1).setName("flood")))
                .build();
    }

    private static TracePacket timed(TracePacket p, long timestamp) {
        return p.toBuilder().setTimestamp(timestamp).build();
    }
}
