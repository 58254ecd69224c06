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
import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * More threads than the SMB has chunks: threads beyond the owned-writer budget write through the shared
 * pool, each event still on its own thread's track, and under overload every event is either in the
 * trace or counted as lost.
 */
class TrackEventManyThreadsTest {
    private static final Category CAT = Category.of("many-threads-test");
    private static final ProcessTrack PROCESS = new ProcessTrack(1, "test", 5);

    @TempDir
    Path dir;

    @Test
    void threadsBeyondTheOwnedBudgetWriteThroughThePoolAndEverySliceLandsOnItsThreadsTrack() throws Exception {
        int threads = 300;
        int slices = 5;
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            DataSourceInstance instance = start(context);
            CountDownLatch started = new CountDownLatch(threads);
            CountDownLatch traced = new CountDownLatch(threads);
            CountDownLatch release = new CountDownLatch(1);
            int[] heldChunksWhileAllAlive = new int[1];
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int index = i;
                Thread t = new Thread(() -> {
                    started.countDown();
                    await(started);
                    for (int j = 0; j < slices; j++) {
                        TrackEvent.begin(CAT, "s-" + index + "-" + j);
                        TrackEvent.end(CAT);
                    }
                    traced.countDown();
                    await(release);
                }, "many-" + i);
                all.add(t);
                t.start();
            }
            traced.await();
            heldChunksWhileAllAlive[0] = context.chunksBeingWritten();
            release.countDown();
            for (Thread t : all) {
                t.join();
            }
            context.runPeriodicTasks(); // the reaper
            context.drain();
            instance.stop();
            List<TracePacket> packets = context.read();

            int budget = context.smbChunks() / 4;
            assertTrue(heldChunksWhileAllAlive[0] <= budget + SequencePool.defaultSize() + 1,
                    "300 live threads held " + heldChunksWhileAllAlive[0] + " chunks; the budget is " + budget
                            + " owned + " + SequencePool.defaultSize() + " pooled + 1");
            Map<String, Long> sliceTracks = beginTracks(packets);
            Map<Long, TrackDescriptor> tracks = tracks(packets);
            for (int i = 0; i < threads; i++) {
                Set<Long> tracksOfThread = new HashSet<>();
                for (int j = 0; j < slices; j++) {
                    Long track = sliceTracks.get("s-" + i + "-" + j);
                    assertTrue(track != null, "slice s-" + i + "-" + j + " is missing");
                    tracksOfThread.add(track);
                }
                assertEquals(1, tracksOfThread.size(), "thread " + i + "'s slices are on one track");
                TrackDescriptor d = tracks.get(tracksOfThread.iterator().next());
                assertTrue(d != null && d.hasThread(), "thread " + i + "'s track is described as a thread");
                assertEquals("many-" + i, d.getThread().getThreadName());
            }
            assertEquals(threads * slices, sliceTracks.size());
            assertEquals(threads, new HashSet<>(sliceTracks.values()).size(), "one track per thread");
            assertEquals(threads * slices, count(packets, TrackEventTypes.END));
            assertTrue(packets.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0));
            assertEquals(0L, RecordingContext.lostEventsCounter(packets, PROCESS));
        }
    }

    @Test
    void underOverloadEveryEventIsInTheTraceOrCountedAsLost() throws Exception {
        int threads = 40;
        int slices = 200;
        // 16 KiB, never drained while the threads run: the SMB fills and most events are dropped.
        try (RecordingContext context = new RecordingContext(dir, 16 * 1024)) {
            DataSourceInstance instance = start(context);
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int index = i;
                Thread t = new Thread(() -> {
                    for (int j = 0; j < slices; j++) {
                        TrackEvent.begin(CAT, "o-" + index + "-" + j);
                        TrackEvent.end(CAT);
                    }
                }, "overload-" + i);
                all.add(t);
                t.start();
            }
            for (Thread t : all) {
                t.join();
            }
            // The service frees the SMB, then the reaper closes the ended threads' writers: each one that
            // dropped packets leaves a drop marker in its last chunk.
            context.drain();
            context.runPeriodicTasks();
            instance.stop();
            List<TracePacket> packets = context.read();

            long inTrace = count(packets, TrackEventTypes.BEGIN) + count(packets, TrackEventTypes.END);
            long lost = RecordingContext.lostEventsCounter(packets, PROCESS);
            assertTrue(lost > 0, "the test must overload the SMB");
            assertEquals(2L * threads * slices, inTrace + lost,
                    "emitted = in the trace (" + inTrace + ") + counted as lost (" + lost + ")");
            assertTrue(context.writerPacketLoss() > 0,
                    "the writers' losses reach TraceStats (trace_writer_packet_loss): " + context.writerPacketLoss());
        }
    }

    /**
     * The control surfaces show a session's lost events while it runs: threads writing through their own
     * writers and through the pool overload the SMB; once they are done, the live figure is what the
     * trace then reports at stop, and after the stop the source still answers with that count.
     */
    @Test
    void theLiveLostEventsCountIsWhatTheTraceReportsAtStop() throws Exception {
        long sessionId = 42;
        try (RecordingContext context = new RecordingContext(dir, 16 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(PROCESS);
            DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(true)
                    .setTracingSessionId(sessionId).build());
            instance.start();
            assertEquals(0, source.lostEvents(sessionId));
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                Thread t = new Thread(() -> {
                    for (int j = 0; j < 200; j++) {
                        TrackEvent.begin(CAT, "live");
                        TrackEvent.end(CAT);
                    }
                }, "live-" + i);
                all.add(t);
                t.start();
            }
            for (Thread t : all) {
                t.join();
            }
            long live = source.lostEvents(sessionId);
            context.drain();
            context.runPeriodicTasks();
            instance.stop();
            long inTrace = RecordingContext.lostEventsCounter(context.read(), PROCESS);

            assertTrue(live > 0, "the test must overload the SMB");
            assertEquals(inTrace, live, "live figure once the threads are done vs the trace's count at stop");
            assertEquals(inTrace, source.lostEvents(sessionId), "after the stop");
            assertEquals(-1, source.lostEvents(sessionId + 1), "a session the source never served");
        }
    }

    /**
     * A thread that keeps overrunning the SMB, which the service keeps freeing: it loses and regains its
     * chunks over and over. Every event is in the trace, decodable (its sequence's incremental state is
     * valid, as trace_processor checks it), or counted as lost: exactly.
     */
    @Test
    void aWriterThatRepeatedlyLosesAndRegainsTheSmbLeavesOnlyDecodableEventsAndCountsTheRest() throws Exception {
        int rounds = 40;
        int slicesPerRound = 2000;
        try (RecordingContext context = new RecordingContext(dir, 16 * 1024)) {
            DataSourceInstance instance = start(context);
            Thread t = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        for (int j = 0; j < slicesPerRound; j++) {
                            TrackEvent.begin(CAT, "round-" + (j % 7));
                            TrackEvent.end(CAT);
                        }
                        context.drain();
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "overrun");
            t.start();
            t.join();
            instance.stop();
            List<TracePacket> packets = context.read();

            Map<Integer, Boolean> valid = new HashMap<>();
            long decodable = 0;
            long undecodable = 0;
            for (TracePacket p : packets) {
                int seq = p.getTrustedPacketSequenceId();
                if (p.getPreviousPacketDropped() != 0) {
                    valid.put(seq, false);
                }
                if ((p.getSequenceFlags() & 1) != 0) {
                    valid.put(seq, true);
                }
                boolean isEvent = p.hasTrackEvent() && !p.getTrackEvent().hasCounterValue();
                if (isEvent) {
                    // Flagged or not (a small event's chunk carries the flag): an event on a sequence whose
                    // state is not valid is one trace_processor would skip, or misread by stale deltas and iids.
                    if (!valid.getOrDefault(seq, false)) {
                        undecodable++;
                    } else {
                        decodable++;
                    }
                }
            }
            long lost = RecordingContext.lostEventsCounter(packets, PROCESS);
            assertTrue(lost > 0, "the test must overrun the SMB");
            assertEquals(0, undecodable, "events trace_processor would skip (incremental state not valid)");
            assertEquals(2L * rounds * slicesPerRound, decodable + lost,
                    "emitted = decodable in the trace (" + decodable + ") + counted as lost (" + lost + ")");
        }
    }

    /** The service frees chunks while a thread floods: the count stays exact when losses and frees interleave freely. */
    @Test
    void whileTheServiceFreesChunksConcurrentlyEveryEventIsInTheTraceOrCountedExactly() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 16 * 1024)) {
            DataSourceInstance instance = start(context);
            AtomicBoolean flooding = new AtomicBoolean(true);
            long[] emitted = new long[1];
            // 300,000 slices: at most ~6 MB reach the context's 16 MiB buffer, which keeps everything until
            // the end (it discards what comes once it is full), so the lost-events counter fits too.
            Thread flood = new Thread(() -> {
                long n = 0;
                while (n < 600_000) {
                    TrackEvent.begin(CAT, "f");
                    TrackEvent.end(CAT);
                    n += 2;
                }
                emitted[0] = n;
                flooding.set(false);
            }, "flood");
            flood.start();
            while (flooding.get()) {
                context.drain();
            }
            flood.join();
            context.drain(); // room for the lost-events counter the stop writes
            instance.stop();
            List<TracePacket> packets = context.read();
            long inTrace = count(packets, TrackEventTypes.BEGIN) + count(packets, TrackEventTypes.END);
            long lost = RecordingContext.lostEventsCounter(packets, PROCESS);
            assertTrue(lost > 0, "the test must overrun the SMB");
            assertEquals(emitted[0], inTrace + lost, "emitted = in the trace (" + inTrace + ") + counted as lost (" + lost + ")");
        }
    }

    @Test
    void aThreadThatCannotGetAWriterIdLosesOnlyCountedEventsAndNeverSeesAnException() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 64 * 1024)) {
            DataSourceInstance instance = start(context);
            context.exhaustWriterIds();
            Thread t = new Thread(() -> {
                for (int j = 0; j < 3; j++) {
                    TrackEvent.begin(CAT, "no-id-" + j);
                    TrackEvent.end(CAT);
                }
            }, "no-id");
            Throwable[] thrown = new Throwable[1];
            t.setUncaughtExceptionHandler((thread, e) -> thrown[0] = e);
            t.start();
            t.join();
            context.runPeriodicTasks();
            context.drain();
            instance.stop();
            List<TracePacket> packets = context.read();

            assertEquals(null, thrown[0], "nothing thrown inside jtrace reaches the application");
            long inTrace = count(packets, TrackEventTypes.BEGIN) + count(packets, TrackEventTypes.END);
            assertEquals(1L, RecordingContext.lostEventsCounter(packets, PROCESS), "the event that asked for a writer id is counted as lost");
            assertEquals(5L, inTrace, "the thread's other events went through the shared pool");
        }
    }

    @Test
    void theReaperHandsBackTheChunksOfEndedThreadsWithoutWaitingForAnIncrementalStateClear() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 64 * 1024)) {
            DataSourceInstance instance = start(context);
            for (int i = 0; i < 8; i++) {
                Thread t = new Thread(() -> {
                    TrackEvent.begin(CAT, "short-lived");
                    TrackEvent.end(CAT);
                });
                t.start();
                t.join();
            }
            assertEquals(8, context.chunksBeingWritten());
            context.runPeriodicTasks();
            assertEquals(0, context.chunksBeingWritten());
            instance.stop();
        }
    }

    private static DataSourceInstance start(RecordingContext context) {
        TrackEventDataSource source = new TrackEventDataSource(PROCESS);
        DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").setNeedsIncrementalStateByChunk(true).build());
        instance.start();
        return instance;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Slice name → track of its begin event, decoding names per sequence as trace_processor does. */
    private static Map<String, Long> beginTracks(List<TracePacket> packets) {
        Map<Integer, Map<Long, String>> names = new HashMap<>();
        Map<Integer, Long> defaults = new HashMap<>();
        Map<String, Long> result = new HashMap<>();
        for (TracePacket p : packets) {
            int seq = p.getTrustedPacketSequenceId();
            if ((p.getSequenceFlags() & 1) != 0) {
                names.remove(seq);
            }
            if (p.hasTracePacketDefaults()) {
                defaults.put(seq, p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid());
            }
            for (EventName n : p.getInternedData().getEventNamesList()) {
                names.computeIfAbsent(seq, k -> new HashMap<>()).put(n.getIid(), n.getName());
            }
            if (p.hasTrackEvent() && p.getTrackEvent().getType() == TrackEventTypes.BEGIN) {
                String name = names.getOrDefault(seq, Map.of()).get(p.getTrackEvent().getNameIid());
                long track = p.getTrackEvent().hasTrackUuid() ? p.getTrackEvent().getTrackUuid()
                        : defaults.getOrDefault(seq, 0L);
                if (name != null && result.put(name, track) != null) {
                    throw new AssertionError("slice " + name + " appears twice");
                }
            }
        }
        return result;
    }

    private static Map<Long, TrackDescriptor> tracks(List<TracePacket> packets) {
        Map<Long, TrackDescriptor> tracks = new HashMap<>();
        for (TracePacket p : packets) {
            if (p.hasTrackDescriptor()) {
                tracks.put(p.getTrackDescriptor().getUuid(), p.getTrackDescriptor());
            }
        }
        return tracks;
    }

    private static long count(List<TracePacket> packets, io.jtrace.protos.TrackEvent.Type type) {
        return packets.stream().filter(p -> p.hasTrackEvent() && p.getTrackEvent().getType() == type
                && !p.getTrackEvent().hasCounterValue()).count();
    }

    private static final class TrackEventTypes {
        static final io.jtrace.protos.TrackEvent.Type BEGIN = io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN;
        static final io.jtrace.protos.TrackEvent.Type END = io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_END;
    }
}
