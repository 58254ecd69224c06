package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.api.AgentBridge;
import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEventConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread that repeats one slice writes it through its {@link HotSequence} memo, past the general
 * route: the memo must follow every change of where the slice's category goes.
 */
class HotSliceRoutingTest {
    private static final Category HOT = Category.of("hot-routing");

    @TempDir
    Path dir;

    @Test
    void aRepeatedSliceGoesToTheSessionThatTookTheSlotOfAStoppedOne() throws Exception {
        try (RecordingContext first = new RecordingContext(Files.createDirectories(dir.resolve("first")), 1024 * 1024);
             RecordingContext second = new RecordingContext(Files.createDirectories(dir.resolve("second")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 23));
            DataSourceInstance a = start(source, first);
            slices(3);
            a.stop();
            DataSourceInstance b = start(source, second);
            slices(4);
            b.stop();

            assertEquals(3, hotSlices(first.read()), "the stopped session has the slices of its time only");
            assertEquals(4, hotSlices(second.read()), "the session in the same slot has every later slice");
        }
    }

    @Test
    void aRepeatedSliceReachesASessionItsCategoryJoinsAfterTheSessionsWereSeen() throws Exception {
        try (RecordingContext first = new RecordingContext(Files.createDirectories(dir.resolve("first")), 1024 * 1024);
             RecordingContext second = new RecordingContext(Files.createDirectories(dir.resolve("second")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 29));
            DataSourceInstance a = start(source, first);
            DataSourceInstance b = start(source, second);
            int both = AgentBridge.sessionMask(HOT);
            // The window of a session's start: the thread already sees the new sessions, but the category's
            // mask does not name the new session yet. The producer thread sets the mask right after.
            AgentBridge bridge = AgentBridge.open();
            bridge.setSessionMask(HOT, both & -both);
            slices(2);
            bridge.setSessionMask(HOT, both);
            slices(5);
            a.stop();
            b.stop();

            assertEquals(7, hotSlices(first.read()));
            assertEquals(5, hotSlices(second.read()), "every slice after the mask named the second session");
        }
    }

    @Test
    void theReaperFreesTheTableSlotOfAnEndedThreadForTheNextThreadWithTheSameSlot() throws Exception {
        try (RecordingContext context = new RecordingContext(Files.createDirectories(dir.resolve("reaped")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 31));
            DataSourceInstance session = start(source, context);
            AtomicBoolean endedHeld = new AtomicBoolean();
            AtomicBoolean beforeReapHeld = new AtomicBoolean(true);
            AtomicBoolean afterReapHeld = new AtomicBoolean();
            Thread ended = new Thread(() -> slicesThenCheck(source, endedHeld));
            Thread beforeReap = HotSequenceTableTest.sameSlotAs(ended, () -> slicesThenCheck(source, beforeReapHeld));
            Thread afterReap = HotSequenceTableTest.sameSlotAs(ended, () -> slicesThenCheck(source, afterReapHeld));

            runToEnd(ended);
            runToEnd(beforeReap);
            source.reapEndedThreads();
            runToEnd(afterReap);
            session.stop();

            assertTrue(endedHeld.get(), "a thread with an own sequence takes its free slot");
            assertFalse(beforeReapHeld.get(), "an ended thread keeps its slot until it is reaped");
            assertTrue(afterReapHeld.get(), "the reaper frees the slot");
            assertEquals(9, hotSlices(context.read()), "every slice is written, in the table or not");
        }
    }

    private static void slicesThenCheck(TrackEventDataSource source, AtomicBoolean heldItsSlot) {
        slices(3);
        heldItsSlot.set(source.hotMemoInTable());
    }

    private static void runToEnd(Thread t) throws InterruptedException {
        t.start();
        t.join();
    }

    private static void slices(int count) {
        for (int i = 0; i < count; i++) {
            TrackEvent.begin(HOT, "hot");
            TrackEvent.end(HOT);
        }
    }

    private static DataSourceInstance start(TrackEventDataSource source, RecordingContext context) {
        DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(true)
                .setTrackEventConfig(TrackEventConfig.newBuilder().addEnabledCategories(HOT.name())).build());
        instance.start();
        return instance;
    }

    /** Slices named "hot" (begins, with as many ends). */
    private static int hotSlices(List<TracePacket> packets) {
        Map<Integer, Map<Long, String>> interned = new HashMap<>();
        int begins = 0;
        int ends = 0;
        for (TracePacket p : packets) {
            Map<Long, String> names = interned.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new HashMap<>());
            for (EventName n : p.getInternedData().getEventNamesList()) {
                names.put(n.getIid(), n.getName());
            }
            if (!p.hasTrackEvent()) {
                continue;
            }
            switch (p.getTrackEvent().getType()) {
                case TYPE_SLICE_BEGIN -> {
                    assertEquals("hot", names.get(p.getTrackEvent().getNameIid()));
                    begins++;
                }
                case TYPE_SLICE_END -> ends++;
                default -> { }
            }
        }
        assertEquals(begins, ends, "every begin has its end");
        return begins;
    }
}
