package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Events written on the fast path (names and categories already interned) and on the general path
 * decode to the same thing: every slice's name and category resolve through the sequence's interned
 * data, with 1- and 2-byte iids, and timestamps come out as written.
 */
class TrackEventEncodingTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "needs incremental state by chunk {0}")
    @ValueSource(booleans = {true, false})
    void slicesKeepTheirNamesAndCategoriesWithOneAndTwoByteIids(boolean byChunk) throws Exception {
        int names = 300; // iids 1..300: one and two varint bytes
        List<Category> categories = List.of(Category.of("enc-a"), Category.of("enc-b"), Category.of("enc-c"));
        List<String> expected = new ArrayList<>();
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 7));
            DataSourceInstance instance = source.create(context, config(byChunk));
            instance.start();
            for (int round = 0; round < 3; round++) { // round 0 interns, rounds 1-2 take the fast path
                for (int i = 0; i < names; i++) {
                    Category category = categories.get(i % categories.size());
                    String name = "name-" + i;
                    TrackEvent.begin(category, name);
                    TrackEvent.instant(category, name);
                    TrackEvent.end(category);
                    expected.add(category.name() + "/" + name);
                }
            }
            instance.stop();
            assertEquals(expected, decodedSlices(context.read()));
        }
    }

    /**
     * A steady-state slice (name and category interned) is two packets that carry only a timestamp delta
     * and the event: no sequence_flags, whose NEEDS_INCREMENTAL_STATE the writer's chunks carry for them.
     * With the service's sequence id and the file's frame each is at most 17 bytes. For a service that
     * does not read the chunk's flag (an older daemon), each packet carries it: 2 bytes more.
     */
    @ParameterizedTest(name = "needs incremental state by chunk {0}")
    @ValueSource(booleans = {true, false})
    void aSteadyStateSliceIsTwoPacketsOfATimestampAndAnEventWithSequenceFlagsOnlyForAnOlderService(boolean byChunk) throws Exception {
        Category category = Category.of("enc-small");
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 7));
            DataSourceInstance instance = source.create(context, config(byChunk));
            instance.start();
            for (int i = 0; i < 100; i++) {
                TrackEvent.begin(category, "steady");
                TrackEvent.end(category);
            }
            instance.stop();
            List<TracePacket> events = context.read().stream().filter(TracePacket::hasTrackEvent)
                    .filter(p -> p.getTrackEvent().getType() != io.jtrace.protos.TrackEvent.Type.TYPE_COUNTER).toList();
            assertEquals(200, events.size());
            // The first slice interns its name and category; the rest are the steady state. The service
            // adds the producer's uid and pid to the first packet of each chunk.
            for (TracePacket p : events.subList(2, events.size())) {
                TracePacket bare = p.toBuilder().clearTrustedUid().clearTrustedPid().build();
                Set<Integer> fields = new HashSet<>(Set.of(TracePacket.TIMESTAMP_FIELD_NUMBER,
                        TracePacket.TRACK_EVENT_FIELD_NUMBER, TracePacket.TRUSTED_PACKET_SEQUENCE_ID_FIELD_NUMBER));
                if (!byChunk) {
                    fields.add(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER);
                    assertEquals(2, p.getSequenceFlags(), "NEEDS_INCREMENTAL_STATE: " + p);
                }
                assertEquals(fields,
                        bare.getAllFields().keySet().stream().map(f -> f.getNumber()).collect(Collectors.toSet()),
                        p.toString());
                int inFile = 2 + bare.getSerializedSize();
                assertTrue(inFile <= (byChunk ? 17 : 19), inFile + " bytes in a file: " + p);
            }
        }
    }

    /** Past 2^14 names an iid takes three varint bytes, which only the general path writes. */
    @ParameterizedTest(name = "needs incremental state by chunk {0}")
    @ValueSource(booleans = {true, false})
    void slicesKeepTheirNamesPastTheIidsOfTwoVarintBytes(boolean byChunk) throws Exception {
        Category category = Category.of("enc-many");
        List<String> expected = new ArrayList<>();
        try (RecordingContext context = new RecordingContext(dir, 8 * 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 7));
            DataSourceInstance instance = source.create(context, config(byChunk));
            instance.start();
            for (int i = 0; i < SmallEventEncoder.MAX_SMALL_IID - 20; i++) {
                TrackEvent.instant(category, "filler-" + i);
            }
            for (int round = 0; round < 2; round++) { // round 0 interns, round 1 finds them interned
                for (int i = 0; i < 40; i++) { // iids on both sides of 2^14
                    String name = "many-" + i;
                    TrackEvent.begin(category, name);
                    TrackEvent.end(category);
                    expected.add(category.name() + "/" + name);
                }
            }
            instance.stop();
            assertEquals(expected, decodedSlices(context.read()));
        }
    }

    /**
     * Timestamps are deltas on the sequence's incremental clock, 1 to 3 bytes for a slice; one earlier
     * than the sequence's last (a pooled sequence, or a caller's own clock) is written whole, on
     * CLOCK_MONOTONIC, and leaves the incremental clock where it was.
     */
    @ParameterizedTest(name = "needs incremental state by chunk {0}")
    @ValueSource(booleans = {true, false})
    void timestampsComeOutAsWrittenWhetherDeltasOrWhole(boolean byChunk) throws Exception {
        Category category = Category.of("enc-time");
        long base = 5_000_000_000L;
        long[] times = {base, base + 1, base + 1, base + 300, base + 200, base + 1_000_000, base - 7,
                base + (1L << 40), base + (1L << 40) + 5};
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 7));
            DataSourceInstance instance = source.create(context, config(byChunk));
            instance.start();
            for (long t : times) {
                source.instant(category, "tick", t);
            }
            instance.stop();
            SequenceClocks clocks = new SequenceClocks();
            List<Long> decoded = new ArrayList<>();
            List<Boolean> whole = new ArrayList<>();
            for (TracePacket p : context.read()) {
                long t = clocks.monotonic(p);
                if (p.hasTrackEvent() && p.getTrackEvent().getType() == io.jtrace.protos.TrackEvent.Type.TYPE_INSTANT) {
                    decoded.add(t);
                    whole.add(p.hasTimestampClockId());
                }
            }
            assertEquals(Arrays.stream(times).boxed().toList(), decoded);
            assertEquals(List.of(false, false, false, false, true, false, true, false, false), whole,
                    "only timestamps earlier than the sequence's last are written whole");
        }
    }

    /** Long and double counter samples keep their value and time, on the counter track named after them. */
    @ParameterizedTest(name = "needs incremental state by chunk {0}")
    @ValueSource(booleans = {true, false})
    void counterSamplesKeepTheirValuesAndTimesOnTheirNamedTrack(boolean byChunk) throws Exception {
        Category category = Category.of("enc-counter");
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            ProcessTrack process = new ProcessTrack(1, "test", 7);
            TrackEventDataSource source = new TrackEventDataSource(process);
            DataSourceInstance instance = source.create(context, config(byChunk));
            instance.start();
            source.counter(category, "queue", 42L, 7_000_000_000L);
            source.counter(category, "load", 0.75, 7_000_000_100L);
            source.counter(category, "queue", -3L, 7_000_000_200L);
            instance.stop();
            SequenceClocks clocks = new SequenceClocks();
            List<String> samples = new ArrayList<>();
            for (TracePacket p : context.read()) {
                long t = clocks.monotonic(p);
                io.jtrace.protos.TrackEvent e = p.getTrackEvent();
                if (p.hasTrackEvent() && e.getType() == io.jtrace.protos.TrackEvent.Type.TYPE_COUNTER
                        && e.getTrackUuid() != process.namedUuid("counter:" + TrackEventDataSource.LOST_EVENTS_TRACK)) {
                    String track = e.getTrackUuid() == process.namedUuid("counter:queue") ? "queue"
                            : e.getTrackUuid() == process.namedUuid("counter:load") ? "load" : "?";
                    String value = e.hasDoubleCounterValue() ? String.valueOf(e.getDoubleCounterValue())
                            : String.valueOf(e.getCounterValue());
                    samples.add(track + "@" + t + "=" + value);
                }
            }
            assertEquals(List.of("queue@7000000000=42", "load@7000000100=0.75", "queue@7000000200=-3"), samples);
        }
    }

    /**
     * What the service sends the data source; {@code byChunk}: it reads the chunks' "packets need
     * incremental state" flag (a jtrace service does; an older daemon does not).
     */
    private static DataSourceConfig config(boolean byChunk) {
        return DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(byChunk).build();
    }

    /** category/name of each slice begin, resolved like trace_processor through per-sequence interning. */
    private static List<String> decodedSlices(List<TracePacket> packets) {
        Map<Integer, Map<Long, String>> names = new HashMap<>();
        Map<Integer, Map<Long, String>> categories = new HashMap<>();
        List<String> slices = new ArrayList<>();
        SequenceClocks clocks = new SequenceClocks();
        long lastTimestamp = 0;
        for (TracePacket p : packets) {
            int seq = p.getTrustedPacketSequenceId();
            long timestamp = clocks.monotonic(p);
            for (EventName n : p.getInternedData().getEventNamesList()) {
                names.computeIfAbsent(seq, k -> new HashMap<>()).put(n.getIid(), n.getName());
            }
            for (EventCategory c : p.getInternedData().getEventCategoriesList()) {
                categories.computeIfAbsent(seq, k -> new HashMap<>()).put(c.getIid(), c.getName());
            }
            if (p.hasTrackEvent() && p.getTrackEvent().getType() != io.jtrace.protos.TrackEvent.Type.TYPE_COUNTER) {
                assertTrue(timestamp >= lastTimestamp, "timestamps in order");
                lastTimestamp = timestamp;
                io.jtrace.protos.TrackEvent e = p.getTrackEvent();
                if (e.getType() == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN) {
                    slices.add(categories.get(seq).get(e.getCategoryIids(0)) + "/" + names.get(seq).get(e.getNameIid()));
                }
            }
        }
        return slices;
    }
}
