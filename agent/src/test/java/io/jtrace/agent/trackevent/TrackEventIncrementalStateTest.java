package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.buffer.TraceBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread's sequence must stay decodable when earlier packets are gone: after the service asks for
 * it, after the writer itself dropped packets, and at every chunk of a buffer that overwrites chunks
 * nobody read, the sequence starts its incremental state over (sequence header, thread descriptor,
 * names interned again).
 */
class TrackEventIncrementalStateTest {
    private static final Category CAT = Category.of("incremental-test");
    private static final ProcessTrack PROCESS = new ProcessTrack(1, "test", 42);

    @TempDir
    Path dir;

    @Test
    void clearingIncrementalStateMakesTheThreadWriteItsHeaderAndNamesAgain() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 64 * 1024)) {
            DataSourceInstance instance = startTrackEvent(context);
            slice("a");
            instance.clearIncrementalState();
            slice("a");
            slice("a");
            instance.clearIncrementalState();
            slice("a");
            instance.stop();

            List<TracePacket> sequence = threadSequence(context.read());
            assertEquals(3, count(sequence, p -> (p.getSequenceFlags() & 1) != 0), "one header per (re)start");
            assertEquals(3, count(sequence, p -> p.hasInternedData()), "the name is interned again after each clear");
            assertEquals(List.of(), undecodable(sequence));
            assertEquals(4, count(sequence, p -> p.hasTrackEvent() && p.getTrackEvent().getType()
                    == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN));
        }
    }

    /**
     * More names than the sequence remembers ({@link Sequence#NAME_SLOTS}), some sharing a slot, passed
     * as the same instances and as equal copies, alternating, around a clear: every begin carries its
     * own name's iid, and each name is interned once per incremental state (a remembered iid that
     * outlived a clear would point at nothing).
     */
    @Test
    void aThreadAlternatingBetweenManyNamesNamesEverySliceRightAndInternsEachOncePerState() throws Exception {
        String[] names = new String[3 * Sequence.NAME_SLOTS];
        for (int i = 0; i < names.length; i++) {
            names[i] = "op-" + i;
        }
        List<String> expected = new ArrayList<>();
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            DataSourceInstance instance = startTrackEvent(context);
            for (int round = 0; round < 2; round++) {
                for (int pass = 0; pass < 5; pass++) {
                    for (int i = 0; i < names.length; i++) {
                        String name = pass == 3 ? new String(names[i]) : names[i];
                        slice(name);
                        expected.add(name);
                    }
                }
                if (round == 0) {
                    instance.clearIncrementalState();
                }
            }
            instance.stop();

            List<TracePacket> sequence = threadSequence(context.read());
            assertEquals(List.of(), undecodable(sequence));
            assertEquals(expected, beginNames(sequence), "every begin names what the thread passed, in order");
            assertEquals(2 * names.length, names(sequence).size(), "each name interned once before and once after the clear");
        }
    }

    @Test
    void aWriterThatDroppedPacketsStartsItsIncrementalStateOver() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 4096)) {
            DataSourceInstance instance = startTrackEvent(context);
            slice("first");
            // The SMB's 4 chunks are never freed until drain(): the thread fills them, then drops.
            for (int i = 0; i < 2000; i++) {
                slice("filler");
            }
            assertTrue(context.droppedPackets() > 0, "the SMB filled up");
            context.drain();
            slice("after-the-loss");
            instance.stop();

            List<TracePacket> sequence = threadSequence(context.read());
            int loss = indexOf(sequence, p -> p.getPreviousPacketDropped() != 0);
            assertTrue(loss >= 0, "the loss is reported");
            int header = indexOf(sequence.subList(loss, sequence.size()), p -> (p.getSequenceFlags() & 1) != 0);
            assertTrue(header >= 0, "a new header follows the loss");
            assertEquals(List.of(), undecodable(sequence.subList(loss + header, sequence.size())));
            assertTrue(names(sequence).contains("after-the-loss"));
        }
    }

    @Test
    void whileTheSmbIsFullEverySliceIsDroppedAndCountedAndTheFirstAfterChunksAreFreedIsWritten() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 4096)) {
            DataSourceInstance instance = startTrackEvent(context);
            long slices = 0;
            while (context.droppedPackets() == 0) {
                slice("filler");
                slices++;
                assertTrue(slices < 100_000, "a 4 KiB SMB never freed fills up long before this");
            }
            // Nothing frees a chunk until drain(): these are all dropped, by the hot path, or by the general
            // route when the commit thread's period moved the free epoch and a restart was tried (its header
            // and descriptor are then dropped too, and the event counted as lost without a writer).
            long dropsWhenFull = context.droppedPackets();
            for (int i = 0; i < 1000; i++) {
                slice("filler");
                slices++;
            }
            assertTrue(context.droppedPackets() - dropsWhenFull >= 2000, "the slices while full were dropped");
            context.drain();
            slice("after-the-loss");
            slices++;
            instance.stop();

            List<TracePacket> packets = context.read();
            assertTrue(names(threadSequence(packets)).contains("after-the-loss"), "the slice after the loss was written");
            long events = count(packets, p -> p.hasTrackEvent() && !p.getTrackEvent().hasCounterValue());
            long lost = RecordingContext.lostEventsCounter(packets, PROCESS);
            assertTrue(lost >= 2000, "lost " + lost);
            assertEquals(2 * slices, events + lost, "every begin and end is in the trace or counted as lost");
        }
    }

    /**
     * One thread's slices, four names in turn, into a 32 KiB ring drained every 500 slices: the ring
     * keeps its last eight chunks or so. Told that its buffer overwrites, the writer opens each chunk
     * with the sequence's header and names, so everything the ring kept decodes but (at most) the event
     * that opened its oldest chunk; told nothing, only the first chunk had the names, and the service
     * leaves out, counted, nearly everything the ring kept.
     */
    @Test
    void inABufferThatOverwritesEveryChunkOpensWithTheSequencesIncrementalState() throws Exception {
        RingRun selfContained = ringRun(true);
        assertTrue(selfContained.packetsLeftOut() <= 1, "left out: " + selfContained.packetsLeftOut());
        assertEquals(List.of(), undecodable(selfContained.sequence()));
        assertTrue(selfContained.begins() > 300, "slices the ring kept: " + selfContained.begins());

        RingRun plain = ringRun(false);
        assertTrue(plain.packetsLeftOut() > 10L * plain.begins(),
                "without it the names went with the first chunk: " + plain.packetsLeftOut() + " left out, "
                        + plain.begins() + " slices kept");
    }

    private record RingRun(List<TracePacket> sequence, long begins, long packetsLeftOut) {}

    private RingRun ringRun(boolean overwrites) throws Exception {
        TraceBuffer ring = new TraceBuffer(32 * 1024, TraceBuffer.Policy.RING);
        try (RecordingContext context = new RecordingContext(dir, 1 << 20, ring)) {
            TrackEventDataSource source = new TrackEventDataSource(PROCESS);
            DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(true)
                    .setTargetBufferOverwrites(overwrites).build());
            instance.start();
            String[] names = {"a", "b", "c", "d"};
            for (int i = 0; i < 20_000; i++) {
                slice(names[i & 3]);
                if (i % 500 == 499) {
                    context.drain();
                }
            }
            instance.stop();
            List<TracePacket> packets = context.read();
            long begins = count(packets, p -> p.hasTrackEvent()
                    && p.getTrackEvent().getType() == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN);
            List<TracePacket> sequence = begins == 0 ? List.of() : threadSequence(packets);
            return new RingRun(sequence, begins, ring.counters().packetsWithoutIncrementalState());
        }
    }

    private static DataSourceInstance startTrackEvent(RecordingContext context) {
        TrackEventDataSource source = new TrackEventDataSource(PROCESS);
        DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(true).build());
        instance.start();
        return instance;
    }

    private static void slice(String name) {
        TrackEvent.begin(CAT, name);
        TrackEvent.end(CAT);
    }

    /** The packets of the sequence that carries this thread's events (the one with slices). */
    private static List<TracePacket> threadSequence(List<TracePacket> packets) {
        Map<Integer, List<TracePacket>> bySequence = new HashMap<>();
        for (TracePacket p : packets) {
            bySequence.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new ArrayList<>()).add(p);
        }
        return bySequence.values().stream().filter(s -> s.stream().anyMatch(p -> p.hasTrackEvent()
                        && p.getTrackEvent().getType() == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN))
                .findFirst().orElseThrow();
    }

    /** Events whose name iid no earlier packet since the last header interned, as trace_processor sees it. */
    private static List<String> undecodable(List<TracePacket> sequence) {
        Map<Long, String> interned = new HashMap<>();
        List<String> problems = new ArrayList<>();
        boolean cleared = false;
        for (TracePacket p : sequence) {
            if ((p.getSequenceFlags() & 1) != 0) {
                interned.clear();
                cleared = true;
            }
            if (p.getPreviousPacketDropped() != 0 && (p.getSequenceFlags() & 1) == 0) {
                interned.clear();
                cleared = false;
            }
            for (EventName n : p.getInternedData().getEventNamesList()) {
                interned.put(n.getIid(), n.getName());
            }
            if (p.hasTrackEvent() && p.getTrackEvent().hasNameIid()
                    && (!cleared || !interned.containsKey(p.getTrackEvent().getNameIid()))) {
                problems.add("name iid " + p.getTrackEvent().getNameIid() + " at ts " + p.getTimestamp());
            }
        }
        return problems;
    }

    /** The names of the sequence's slice begins, resolved through what it interned since its last header. */
    private static List<String> beginNames(List<TracePacket> sequence) {
        Map<Long, String> interned = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (TracePacket p : sequence) {
            if ((p.getSequenceFlags() & 1) != 0) {
                interned.clear();
            }
            for (EventName n : p.getInternedData().getEventNamesList()) {
                interned.put(n.getIid(), n.getName());
            }
            if (p.hasTrackEvent() && p.getTrackEvent().getType() == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN) {
                names.add(interned.get(p.getTrackEvent().getNameIid()));
            }
        }
        return names;
    }

    private static List<String> names(List<TracePacket> sequence) {
        List<String> names = new ArrayList<>();
        for (TracePacket p : sequence) {
            for (EventName n : p.getInternedData().getEventNamesList()) {
                names.add(n.getName());
            }
        }
        return names;
    }

    private static int count(List<TracePacket> packets, java.util.function.Predicate<TracePacket> test) {
        return (int) packets.stream().filter(test).count();
    }

    private static int indexOf(List<TracePacket> packets, java.util.function.Predicate<TracePacket> test) {
        for (int i = 0; i < packets.size(); i++) {
            if (test.test(packets.get(i))) {
                return i;
            }
        }
        return -1;
    }
}
