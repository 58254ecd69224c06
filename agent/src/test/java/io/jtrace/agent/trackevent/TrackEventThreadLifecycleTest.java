package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TracePacket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Threads come and go; the SMB chunks they held must not go with them. */
class TrackEventThreadLifecycleTest {
    private static final Category CAT = Category.of("lifecycle-test");

    @TempDir
    Path dir;

    @Test
    void theChunksOfThreadsThatEndedAreHandedBackAndTheirEventsCommitted() throws Exception {
        try (RecordingContext context = new RecordingContext(dir, 64 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 3));
            DataSourceInstance instance = source.create(context, DataSourceConfig.newBuilder().setName("track_event").build());
            instance.start();
            for (int i = 0; i < 8; i++) {
                Thread t = new Thread(() -> {
                    TrackEvent.begin(CAT, "short-lived");
                    TrackEvent.end(CAT);
                }, "short-lived-" + i);
                t.start();
                t.join();
            }
            assertEquals(8, context.chunksBeingWritten(), "each ended thread still holds its chunk");

            instance.clearIncrementalState(); // the periodic call also reaps ended threads

            assertEquals(0, context.chunksBeingWritten(), "the chunks of ended threads are handed back");
            context.drain();
            instance.stop();
            List<TracePacket> packets = context.read();
            long slices = packets.stream().filter(p -> p.hasTrackEvent()
                    && p.getTrackEvent().getType() == io.jtrace.protos.TrackEvent.Type.TYPE_SLICE_BEGIN).count();
            assertEquals(8, slices, "their events were committed with the chunks");
            assertTrue(packets.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0));
        }
    }
}
