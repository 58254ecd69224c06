package io.jtrace.it.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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
        assertEquals(List.of(new Slice(TRACK, "outer", 10, 40), new Slice(TRACK, "inner", 20, 30)), sortedByBegin());
        assertEquals(0, decoder.problemCount());
    }

    /**
     * JfrVirtualThreadsTest's unpaired api-vstep under load: a virtual thread's slice 1 began and ended
     * and slice 2 began on sequence 1; slice 2 ended on sequence 2, whose chunk the file holds first
     * with a later slice of the thread. Pairing once the held edges balanced made the first begin and
     * the second end one slice; trace_processor, which sorts the whole trace first, pairs each slice.
     */
    @Test
    void anEndReadFirstOnAnotherSequenceClosesItsOwnSliceNotAnEarlierBeginThatWouldBalanceIt() {
        feed(clear(1, "step"));
        feed(clear(2, "step"));
        feed(event(2, 260, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(2, 400, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(2, 410, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 100, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 200, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(1, 250, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        decoder.finish();
        assertEquals(List.of(), decoder.problems());
        assertEquals(List.of(new Slice(TRACK, "step", 100, 200), new Slice(TRACK, "step", 250, 260),
                new Slice(TRACK, "step", 400, 410)), sortedByBegin());
    }

    /**
     * One sequence's begin followed by one of its ends is not a slice when another sequence, read later,
     * holds an end and a begin between them: sequence 1 has the first begin and the second end.
     */
    @Test
    void aSequencesBeginAndNextEndAreNotOneSliceWhenAnotherSequenceHoldsEdgesBetweenThem() {
        feed(clear(1, "step"));
        feed(clear(2, "step"));
        feed(event(1, 100, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        feed(event(1, 260, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(2, 200, TrackEvent.Type.TYPE_SLICE_END, 0));
        feed(event(2, 250, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
        decoder.finish();
        assertEquals(List.of(), decoder.problems());
        assertEquals(List.of(new Slice(TRACK, "step", 100, 200), new Slice(TRACK, "step", 250, 260)), sortedByBegin());
    }

    /**
     * A real trace (VirtualThreadsJfrWorkload, 40 virtual threads x 4 api-vstep slices, through the
     * agent on JDK 25 with 16 carrier threads on 2 cores, nothing lost) in which one slice began on one
     * pooled sequence and ended on another whose chunk the file holds first: every slice is paired,
     * 4 on each thread's track, as trace_processor shows them.
     */
    @Test
    void aRealVirtualThreadTraceWhoseSliceEndsOnASequenceReadFirstDecodesEverySlice() throws Exception {
        Path trace = Path.of(getClass().getResource("/traces/virtual-thread-slice-ends-on-a-sequence-read-first.pftrace").toURI());
        Map<String, Long> edgeIndex = new HashMap<>();
        List<Slice> api = new ArrayList<>();
        TrackEventDecoder real = TrackEventDecoder.decode(trace, new TrackEventDecoder.Listener() {
            @Override
            public void event(long index, TrackEvent event, String name, long timestamp, long track) {
                edgeIndex.put(track + "@" + timestamp, index);
            }

            @Override
            public void slice(long track, String name, List<String> categories, long begin, long end) {
                if ("api-vstep".equals(name)) {
                    api.add(new Slice(track, name, begin, end));
                }
            }
        });
        assertEquals(List.of(), real.problems());
        assertEquals(40 * 4, api.size());
        Map<Long, Long> perTrack = api.stream().collect(Collectors.groupingBy(Slice::track, Collectors.counting()));
        assertEquals(40, perTrack.size());
        assertTrue(perTrack.values().stream().allMatch(n -> n == 4), perTrack.toString());
        assertTrue(api.stream().anyMatch(s -> edgeIndex.get(s.track() + "@" + s.end()) < edgeIndex.get(s.track() + "@" + s.begin())),
                "the trace holds a slice whose end the file has before its begin");
    }

    @Test
    void anEndWhoseBeginWasLostIsReportedOnceAndEverySliceAfterItIsPaired() {
        feed(clear(1, "tick"));
        feed(event(1, 10, TrackEvent.Type.TYPE_SLICE_END, 0)); // its begin was dropped
        for (long t = 20; t < 20 + 10 * 1000; t += 10) {
            feed(event(1, t, TrackEvent.Type.TYPE_SLICE_BEGIN, 1));
            feed(event(1, t + 5, TrackEvent.Type.TYPE_SLICE_END, 0));
        }
        decoder.finish();
        assertEquals(1000, slices.size());
        assertEquals(new Slice(TRACK, "tick", 20, 25), slices.get(0));
        assertEquals(1, decoder.unmatchedEnds());
        assertEquals(0, decoder.unendedSlices());
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
        // In time the end comes first: it ends nothing, and the begin is never ended.
        assertEquals(List.of(), slices);
        assertEquals(1, decoder.unmatchedEnds());
        assertEquals(1, decoder.unendedSlices());
    }

    private List<Slice> sortedByBegin() {
        List<Slice> sorted = new ArrayList<>(slices);
        sorted.sort(Comparator.comparingLong(Slice::begin));
        return sorted;
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
