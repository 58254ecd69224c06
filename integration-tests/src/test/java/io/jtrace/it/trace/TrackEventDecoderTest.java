package io.jtrace.it.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TrackEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decoder pairs a track's begins and ends in time order, whatever sequence and file order they come in. */
class TrackEventDecoderTest {
    private static final long TRACK = 42;

    private record Slice(long track, String name, long begin, long end) {}

    private final List<Slice> slices = new ArrayList<>();
    private final TrackEventDecoder decoder = new TrackEventDecoder(new TrackEventDecoder.Listener() {
        @Override
        public void slice(long track, String name, List<String> categories, long begin, long end) {
            slices.add(new Slice(track, name, begin, end));
        }
    });
    private long index;

    @Test
    void anEndReadBeforeItsBeginFromAnotherSequenceClosesTheSlice() {
        feed(clear(1, "request"));
        feed(clear(2));
        // The slice began on sequence 1 and ended on sequence 2, whose chunk the file holds first.
        feed(event(2, 200, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 100, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        decoder.finish();
        assertEquals(List.of(new Slice(TRACK, "request", 100, 200)), slices);
        assertEquals(List.of(), decoder.problems());
    }

    @Test
    void nestedSlicesWhoseOuterEndIsReadFirstPairByTime() {
        feed(clear(1, "outer", "inner"));
        feed(clear(2));
        // outer and inner began and inner ended on sequence 1; outer ended on sequence 2, read first.
        feed(event(2, 40, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 20, TrackEvent.Type.TYPE_SLICE_BEGIN, 2));
        feed(event(1, 30, TrackEvent.Type.TYPE_SLICE_END, 0));
        decoder.finish();
        assertEquals(List.of(new Slice(TRACK, "outer", 10, 40), new Slice(TRACK, "inner", 20, 30)), slices);
        assertEquals(0, decoder.problemCount());
    }

    @Test
    void afterALostBeginOneSequencesSlicesPairAsTheyComeAndTheOrphanEndIsReportedAtTheEnd() {
        feed(clear(1, "tick"));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_END, 0)); // its begin was dropped
        for (long t = 20; t < 20 + 10 * 1000; t += 10) {
            feed(event(1, t, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
            feed(event(1, t + 5, TrackEvent.Type.TYPE_SLICE_END, 0));
        }
        // Matched as they came: nothing waits for the orphan end to be resolved.
        assertEquals(1000, slices.size());
        assertEquals(new Slice(TRACK, "tick", 20, 25), slices.get(0));
        assertEquals(0, decoder.unmatchedEnds(), "the orphan end is counted only once finish() knows no begin comes");
        decoder.finish();
        assertEquals(1000, slices.size());
        assertEquals(1, decoder.unmatchedEnds());
    }

    @Test
    void slicesCutByTheStartAndEndOfTracingAreReportedAndTheRestPaired() {
        feed(clear(1, "tick"));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 20, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 30, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 40, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        decoder.finish();
        assertEquals(List.of(new Slice(TRACK, "tick", 20, 30)), slices);
        assertEquals(1, decoder.unmatchedEnds());
        assertEquals(1, decoder.unendedSlices());
        assertTrue(decoder.problems().stream().anyMatch(p -> p.contains("never begun")), decoder.problems().toString());
        assertTrue(decoder.problems().stream().anyMatch(p -> p.contains("never ended")), decoder.problems().toString());
    }

    @Test
    void deltasOnASequencesIncrementalClockAddUpFromItsClockSnapshotAndWholeTimestampsStandAlone() {
        feed(clear(1, "a", "b").toBuilder()
                .setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64))
                .setClockSnapshot(ClockSnapshot.newBuilder()
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(3).setTimestamp(5000))
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(64).setTimestamp(1000).setIsIncremental(true)))
                .build());
        feed(event(1, 5, TrackEvent.Type.TYPE_SLICE_BEGIN, 1)); // 1005 on clock 64 = 5005 on MONOTONIC
        feed(event(1, 7, TrackEvent.Type.TYPE_SLICE_END, 0)); // 1012 = 5012
        // Earlier than the sequence's clock: written whole on MONOTONIC, leaving the incremental clock be.
        feed(event(1, 4000, TrackEvent.Type.TYPE_SLICE_BEGIN, 2).toBuilder().setTimestampClockId(3).build());
        feed(event(1, 1, TrackEvent.Type.TYPE_SLICE_END, 0)); // 1013 = 5013
        decoder.finish();
        assertEquals(List.of(new Slice(TRACK, "a", 5005, 5012), new Slice(TRACK, "b", 4000, 5013)), slices);
        assertEquals(0, decoder.problemCount(), decoder.problems().toString());
    }

    @Test
    void afterALossASequencesEventsAreSkippedAndCountedUntilItsNextClear() {
        feed(clear(1, "tick"));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_BEGIN, 1).toBuilder().setPreviousPacketDropped(1).build());
        feed(event(1, 20, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(clear(1, "tock"));
        feed(event(1, 30, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 40, TrackEvent.Type.TYPE_SLICE_END, 0));
        decoder.finish();
        assertEquals(2, decoder.eventsSkippedForLostState());
        assertEquals(List.of(new Slice(TRACK, "tock", 30, 40)), slices);
    }

    @Test
    void anEndBeforeItsBeginOnOneSequenceIsAProblem() {
        feed(clear(1, "tick"));
        feed(event(1, 20, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_END, 0));
        decoder.finish();
        assertTrue(decoder.problems().stream().anyMatch(p -> p.contains("before it begins")), decoder.problems().toString());
    }

    private void feed(TracePacket packet) {
        decoder.packet(index++, packet);
    }

    /** A sequence's first packet: incremental state cleared, {@code names} interned as iids 1, 2, ... */
    private static TracePacket clear(int sequence, String... names) {
        InternedData.Builder interned = InternedData.newBuilder();
        for (int i = 0; i < names.length; i++) {
            interned.addEventNames(EventName.newBuilder().setIid(i + 1).setName(names[i]));
        }
        return TracePacket.newBuilder()
                .setTrustedPacketSequenceId(sequence)
                .setSequenceFlags(1)
                .setInternedData(interned)
                .build();
    }

    /** A begin (named by {@code nameIid}) or end on {@link #TRACK}. */
    private static TracePacket event(int sequence, long timestamp, TrackEvent.Type type, int nameIid) {
        TrackEvent.Builder e = TrackEvent.newBuilder().setType(type).setTrackUuid(TRACK);
        if (nameIid != 0) {
            e.setNameIid(nameIid);
        }
        return TracePacket.newBuilder()
                .setTrustedPacketSequenceId(sequence)
                .setSequenceFlags(2)
                .setTimestamp(timestamp)
                .setTrackEvent(e)
                .build();
    }
}
